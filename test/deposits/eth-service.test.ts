import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethereumFamily } from '../../adaptors/ethereum/index.js';
import { DevChainFunder, type DemoToken } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { parsePublicKey } from '../../src/ledger/public-key.js';
import { checkCallback } from '../../src/security/callback-hmac.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../pipeline/support.js';
import { startReceiver, type Received } from '../webhooks/support.js';

/**
 * The whole service on a real anvil: the worker's scan job finds a deposit, the vault's and the
 * operator's lists show it, signed webhooks tell detected → confirmed, and a reorg's revert;
 * /metrics counts them.
 */
describe('deposits through the service on anvil', () => {
  let anvil: LocalAnvil;
  let funder: DevChainFunder;
  let demo: DemoToken;
  let svc: TestService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;
  const vaultId = 'deposit-vault';
  const publicKey = Buffer.from(ecc.pointFromScalar(Buffer.alloc(32, 9), true)!).toString('hex');
  let address: string;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: T }).result;
  };
  const admin = (method: string, path: string, body?: unknown) => svc.call(method, `/api/v1.0${path}`, { key: ADMIN_KEY, body });
  const hooks = (type?: string) => receiver.received.filter((r: Received) => !type || r.body.type === type);

  beforeAll(async () => {
    anvil = await startAnvil({ keepStates: 64 });
    funder = new DevChainFunder(anvil.url);
    demo = await funder.deployDemoToken();
    const height = Number(await rpc<string>('eth_blockNumber'));
    svc = await startTestService(
      { ethdev: { rpcUrl: anvil.url, tokens: [demo], confirmations: 2 } },
      { pipeline: true, workers: true, env: { DEPOSIT_POLL_MS: '200', DEPOSIT_START: JSON.stringify({ ethdev: height }), WEBHOOK_ALLOW_PRIVATE: 'true' } },
    );
    receiver = await startReceiver();
    const sub = await admin('POST', '/admin/webhooks', { url: receiver.url, events: ['deposit.detected', 'deposit.confirmed', 'deposit.reverted'] });
    expect(sub.status).toBe(201);
    secret = sub.body.secret;
    expect((await admin('POST', '/admin/vaults', { vaultId, ledgerId: 'ethdev', publicKey })).status).toBe(201);
    address = ethereumFamily.addressCodec!('ethdev')!.addressFromPublicKey(parsePublicKey(publicKey, 'secp256k1'));
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop();
    funder?.destroy();
    await anvil?.stop();
  });

  it('a token payment is DETECTED then CONFIRMED, in both lists, told by signed webhooks in order, counted on /metrics', async () => {
    const txid = await funder.sendToken(demo.contract, address, 1_500_000n);
    const detected = await until(
      "the deposit in the vault's list",
      async () => (await svc.call('GET', `/api/v1.0/vaults/${vaultId}/deposits`, { key: READ_KEY })).body.items?.[0],
      30_000,
    );
    expect(detected).toMatchObject({ txid, index: 'log:0', asset: demo.symbol, amount: '1.5', baseUnits: '1500000', credited: true, address, vaultId });
    await rpc('anvil_mine', ['0x2']);
    await until('the confirmed webhook', () => hooks('deposit.confirmed').length === 1, 30_000);
    const own = hooks().filter((r) => r.body.depositId === detected.depositId);
    expect(own.map((r) => [r.body.type, r.body.sequence])).toEqual([
      ['deposit.detected', 1],
      ['deposit.confirmed', 2],
    ]);
    for (const r of own) {
      expect(
        checkCallback(secret, Buffer.from(r.raw), r.headers['x-webhook-timestamp'] as string, r.headers['x-webhook-signature'] as string, 300),
      ).toBeUndefined();
    }
    expect(own[1]?.body.deposit).toMatchObject({ state: 'CONFIRMED', confirmations: 2 });
    const list = await admin('GET', `/admin/deposits?ledgerId=ethdev&state=CONFIRMED&asset=${demo.symbol}&vaultId=${vaultId}`);
    expect(list.body.items.map((d: { depositId: string }) => d.depositId)).toEqual([detected.depositId]);
    expect((await admin('GET', '/admin/deposits?state=REVERTED')).body.items).toEqual([]);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toMatch(/byow_deposits_total\{ledger="ethdev",event="confirmed"\} 1/);
    expect(metrics).toMatch(/byow_deposit_scanner_lag\{ledger="ethdev",unit="blocks"\} \d/);
  });

  it('a payment whose block a reorg replaces is REVERTED, with its webhook; cursor paging goes through every deposit once', async () => {
    const txid = await funder.sendEth(address, 7n);
    await until('the detected webhook', () => hooks('deposit.detected').some((r) => r.body.deposit.txid === txid), 30_000);
    await rpc('anvil_reorg', [1, []]);
    const reverted = await until('the reverted webhook', () => hooks('deposit.reverted').find((r) => r.body.deposit.txid === txid), 30_000);
    expect(reverted.body).toMatchObject({ sequence: 2, deposit: { state: 'REVERTED', amount: '0.000000000000000007', baseUnits: '7', asset: 'ETH' } });
    const first = await admin('GET', '/admin/deposits?limit=1');
    expect(first.body.items).toHaveLength(1);
    const second = await admin('GET', `/admin/deposits?limit=1&cursor=${first.body.nextCursor}`);
    expect([first.body.items[0].state, second.body.items[0].state]).toEqual(['REVERTED', 'CONFIRMED']);
    expect((await admin('GET', `/admin/deposits?limit=1&cursor=${second.body.nextCursor}`)).body.items).toEqual([]);
    const status = await svc.call('GET', '/api/v1.0/status');
    expect(status.body.dependencies['deposits:ethdev']).toEqual({ healthy: true });
  });
});
