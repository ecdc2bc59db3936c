import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevChainFunder } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import type { DepositStore } from '../../src/deposits/deposit-store.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { rpcProxy, type RpcProxy } from '../pipeline/rpc-proxy.js';
import { provider, switchableProxy, until, type SwitchableProxy } from '../pipeline/support.js';
import { startReceiver } from '../webhooks/support.js';
import { countEvents, expectEachToldOnce, registerVault, subscribeDeposits } from './told-once.js';

/**
 * The service (with its workers) reaches anvil through a TCP proxy that refuses and cuts
 * connections while off, in front of a JSON-RPC proxy that can switch it off at a chosen call
 * (a cut in the middle of a scan). While the node is away `/status` shows the deposit scanner
 * unhealthy with the reason and the cursor stays; once it answers the scan catches up, and every
 * payment is told once detected and once confirmed.
 */
describe('deposit scanning with the node down and back', () => {
  let anvil: LocalAnvil;
  let funder: DevChainFunder;
  let p: JsonRpcProvider;
  let rpc: RpcProxy;
  let node: SwitchableProxy;
  let svc: TestService;
  let store: DepositStore;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let address: string;
  const txids: string[] = [];

  const pay = async (n: number) => {
    for (let i = 0; i < n; i++) txids.push(await funder.sendEth(address, BigInt(txids.length + 1)));
  };
  const cursor = async () => (await store.cursor('ethdev'))?.height;
  const scannerHealth = async () => (await svc.call('GET', '/api/v1.0/status')).body.dependencies['deposits:ethdev'];

  beforeAll(async () => {
    anvil = await startAnvil();
    funder = new DevChainFunder(anvil.url);
    p = provider(anvil.url);
    rpc = await rpcProxy(anvil.url);
    const { hostname, port } = new URL(rpc.url);
    node = await switchableProxy({ host: hostname, port: Number(port) });
    const start = await p.getBlockNumber();
    svc = await startTestService(
      { ethdev: { rpcUrl: node.url, confirmations: 2 } },
      {
        pipeline: true,
        workers: true,
        env: { DEPOSIT_POLL_MS: '200', DEPOSIT_START: JSON.stringify({ ethdev: start }), WEBHOOK_ALLOW_PRIVATE: 'true', HEALTH_CACHE_MS: '0' },
      },
    );
    store = svc.pipeline!.deposits.store;
    receiver = await startReceiver();
    await subscribeDeposits(svc, receiver.url);
    address = await registerVault(svc, 'node-down-vault', 'ethdev', 31);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop();
    await node?.close();
    await rpc?.close();
    p?.destroy();
    funder?.destroy();
    await anvil?.stop();
  });

  it('node refusing connections: /status names the reason, the cursor stays; back, the scan catches up', async () => {
    await pay(3);
    await until('the first payments scanned', async () => (await cursor()) === (await p.getBlockNumber()), 30_000);
    await until('their detected events', () => countEvents(receiver.received, 'deposit.detected') === 3);
    const before = (await cursor())!;
    node.off();
    await pay(20);
    const down = await until('the scanner unhealthy', async () => {
      const h = await scannerHealth();
      return h?.healthy === false ? h : undefined;
    });
    expect(down.errorMessage).toMatch(/^the node does not answer: /);
    expect(await cursor()).toBe(before);
    expect(countEvents(receiver.received, 'deposit.detected')).toBe(3);

    node.on();
    await until('the scan caught up', async () => (await cursor()) === (await p.getBlockNumber()), 30_000);
    await until('the scanner healthy again', async () => (await scannerHealth())?.healthy === true);
    await until('every detected event', () => countEvents(receiver.received, 'deposit.detected') === txids.length);
  });

  it('connection cut in the middle of a scan: the block being read is not applied, and is once the node is back', async () => {
    node.off();
    const from = await p.getBlockNumber();
    await pay(30);
    // The scan reads blocks from + 1 on; the read of block `cut` goes through the proxies and
    // switches the node off on its way, cutting that connection and refusing the next ones.
    const cut = from + 12;
    let cutAt: number | undefined;
    rpc.fault = (calls) => {
      const c = calls[0];
      if (cutAt === undefined && c?.method === 'eth_getBlockByNumber' && c.params?.[0] === `0x${cut.toString(16)}`) {
        cutAt = Date.now();
        node.off();
        return 'lose-answer';
      }
      return undefined;
    };
    node.on();
    await until('the cut', () => cutAt !== undefined, 30_000);
    await until('the scanner waiting at the cut', async () => {
      const h = await scannerHealth();
      const view = await store.nodeView('ethdev');
      return h?.healthy === false && view && Date.parse(view.at) >= cutAt! ? h : undefined;
    });
    // Each step moves the cursor with its events at once: nothing of block `cut` or later is told.
    expect(await cursor()).toBe(cut - 1);

    node.on();
    await until('the scan caught up', async () => (await cursor()) === (await p.getBlockNumber()), 30_000);
    await until('the scanner healthy again', async () => (await scannerHealth())?.healthy === true);
    await p.send('anvil_mine', ['0x2']);
    await until('every deposit confirmed', () => countEvents(receiver.received, 'deposit.confirmed') === txids.length, 30_000);
    expectEachToldOnce(receiver.received, 'ethdev', txids);
  });
});
