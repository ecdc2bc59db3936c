import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevChainFunder } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { freePort } from '../../src/dev/free-port.js';
import { json, Processes } from '../deploy/processes.js';
import { startTestService, TEST_CALLBACK_SECRET, type TestService } from '../helpers/service.js';
import { provider, switchableProxy, until, type SwitchableProxy } from '../pipeline/support.js';
import { startReceiver } from '../webhooks/support.js';
import { countEvents, expectEachToldOnce, registerVault, subscribeDeposits } from './told-once.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Blocks, each with one payment to a registered vault. */
const BLOCKS = 150;
const VAULTS = 4;

/**
 * Two real worker processes (`src/worker-main.ts`) on one Redis scan the deposits of an anvil
 * chain. The one scanning is SIGKILLed mid-scan; the other takes the ledger over once the
 * scanner lock runs out and finishes: every payment is told once detected and once confirmed.
 */
describe('two worker processes scanning deposits: the scanning one killed mid-scan', () => {
  let anvil: LocalAnvil;
  let funder: DevChainFunder;
  let p: JsonRpcProvider;
  // The workers reach the node through a proxy kept off until both run, so that neither has
  // scanned before the other is up.
  let node: SwitchableProxy;
  let api: TestService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const procs = new Processes();

  beforeAll(async () => {
    anvil = await startAnvil();
    funder = new DevChainFunder(anvil.url);
    p = provider(anvil.url);
    const { hostname, port } = new URL(anvil.url);
    node = await switchableProxy({ host: hostname, port: Number(port) });
    node.off();
    // The API process only (no workers in it): vaults, webhook subscriptions, the lists.
    api = await startTestService({ ethdev: { rpcUrl: anvil.url, confirmations: 2 } }, { pipeline: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    receiver = await startReceiver();
    await subscribeDeposits(api, receiver.url);
  }, 60_000);
  afterAll(async () => {
    await procs.stopAll();
    await receiver?.close();
    await api?.stop();
    await node?.close();
    p?.destroy();
    funder?.destroy();
    await anvil?.stop();
  });

  async function spawnWorker(name: string, start: number): Promise<{ name: string; child: ChildProcess; port: number }> {
    const config = api.core.config;
    const port = await freePort();
    const child = procs.start(
      name,
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'src/worker-main.ts')],
      {
        NODE_BACKEND: 'js',
        SANDBOX: 'false',
        LOG_LEVEL: 'warn',
        REDIS_URL: config.redisUrl,
        REDIS_PREFIX: config.keyPrefix,
        WORKER_PORT: String(port),
        LEDGERS: JSON.stringify({ ethdev: { rpcUrl: node.url, confirmations: 2 } }),
        API_KEYS: JSON.stringify([{ name: 'unused', key: 'unused-key-0123456789abcdef0123456789', scopes: ['read'] }]),
        CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
        CALLBACK_SECRET: TEST_CALLBACK_SECRET,
        // A scan pass lasts at most half the lock: 2 s here, and a killed scanner's lock runs out within 4 s.
        JOB_LOCK_MS: '4000',
        DEPOSIT_POLL_MS: '200',
        DEPOSIT_START: JSON.stringify({ ethdev: start }),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_BACKOFF_MS: '100',
        // A delivery job's lock is twice this: a killed worker's deliveries go on sooner.
        WEBHOOK_TIMEOUT_MS: '2000',
      },
      { cwd: ROOT },
    );
    return { name, child, port };
  }

  it('the other worker takes over; every deposit detected and confirmed exactly once, in order', async () => {
    const addresses: string[] = [];
    for (let i = 0; i < VAULTS; i++) addresses.push(await registerVault(api, `kill-vault-${i}`, 'ethdev', 20 + i));
    const start = await p.getBlockNumber();
    const txids: string[] = [];
    for (let i = 0; i < BLOCKS; i++) txids.push(await funder.sendEth(addresses[i % VAULTS]!, BigInt(i + 1)));
    const end = await p.getBlockNumber();
    expect(end).toBe(start + BLOCKS);

    const workers = [await spawnWorker('worker-a', start), await spawnWorker('worker-b', start)];
    const names = workers.map((w) => w.name);
    for (const w of workers)
      await procs.until(
        'the worker to answer /status',
        names,
        async () => ((await json(`http://127.0.0.1:${w.port}/status`)).status === 200 ? true : undefined),
        60_000,
      );
    const store = api.pipeline!.deposits.store;
    const queue = api.pipeline!.deposits.queue;
    expect(await store.cursor('ethdev')).toBeUndefined();
    node.on();

    // Mid-scan: the cursor has moved, well short of the end. The worker scanning is the one
    // whose scan job is active (the other's jobs stand back at once while the lock is held).
    await until('the scan to be under way', async () => ((await store.cursor('ethdev'))?.height ?? 0) >= start + 20, 60_000);
    const scanning = await until('the active scan job', async () => {
      const active = (await queue.getActive()).filter((j) => j.data.ledgerId === 'ethdev' && j.processedBy);
      active.sort((a, b) => (a.processedOn ?? 0) - (b.processedOn ?? 0));
      const pid = Number(active[0]?.processedBy?.split(':').at(-1));
      return workers.find((w) => w.child.pid === pid);
    });
    const other = workers.find((w) => w !== scanning)!;
    const exited = new Promise((r) => scanning.child.once('exit', r));
    scanning.child.kill('SIGKILL');
    await exited;
    const atKill = (await store.cursor('ethdev'))!.height;
    expect(atKill).toBeLessThan(end);
    expect(atKill).toBeGreaterThanOrEqual(start + 20);

    // The other, the only worker left, takes the ledger over once the lock runs out and finishes
    // the scan, then confirms everything once the chain is 2 deeper.
    await procs.until(
      'the other worker to reach the end',
      [other.name],
      async () => ((await store.cursor('ethdev'))!.height === end ? true : undefined),
      60_000,
    );
    await p.send('anvil_mine', ['0x2']);
    // A delivery the killed worker held is sent again once the other's stalled-job check finds
    // its lock run out (test/webhooks/stalled-delivery.test.ts); that deposit's later events wait for it.
    await procs.until(
      'every deposit confirmed',
      [other.name],
      async () => (countEvents(receiver.received, 'deposit.confirmed') >= BLOCKS ? true : undefined),
      60_000,
    );
    expectEachToldOnce(receiver.received, 'ethdev', txids);
    const status = await api.call('GET', '/api/v1.0/status');
    expect(status.body.dependencies['deposits:ethdev']).toEqual({ healthy: true });
  }, 180_000);
});
