import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/load-config.js';
import { createDepositQueue, startDepositWorker, scanJobName } from '../../src/deposits/deposit-jobs.js';
import { parseDepositEntry } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import { singleAddress } from '../../src/vaults/vault-addresses.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { testRedis } from '../helpers/redis.js';
import { FakeChain, fakeAdaptor, singleVault, transfer } from './fake-chain.js';

const logger = pino({ level: 'silent' });

/** Polls `check` until it holds; each look waits for Redis, never a fixed sleep before asserting. */
async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('deposit scan jobs: one scanner per ledger across workers', () => {
  const { redis, prefix, url } = testRedis();
  const config = {
    redisUrl: url,
    keyPrefix: prefix.replace(/:$/, ''),
    depositPollMs: 100,
    jobLockMs: 1500,
    retainCompletedJobs: 10,
    retainFailedJobs: 10,
  } as Config;
  const store = new DepositStore(redis, prefix);
  const vaults = new VaultStore(redis, prefix);
  const chain = new FakeChain();
  const adaptor = fakeAdaptor(2);
  const queue = createDepositQueue(redis, config);
  const scannerOf = () => new LedgerScanner(adaptor, chain, { store, vaults, logger }, { window: 50, gapLimit: 5, refreshMs: 60_000, startAfter: 0 });
  const workers: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  });
  const events = async () => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));

  it('two workers scan each block once; a worker killed holding the lock hands over when the lock runs out', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const to = singleAddress(adaptor, v).address;
    for (let i = 0; i < 2; i++) workers.push(await startDepositWorker({ config, logger, queue, store, scanners: new Map([['fakedev', scannerOf()]]) }));
    const sent = Array.from({ length: 6 }, (_, i) => transfer(to, BigInt(i + 1)));
    for (const t of sent) chain.mine(t);
    await until(async () => (await store.cursor('fakedev'))?.height === chain.height);
    // The schedule's jobs carry a readable name.
    const jobs = await queue.getJobs(['completed', 'delayed', 'waiting', 'active']);
    expect(jobs.some((j) => j.name === scanJobName('fakedev'))).toBe(true);

    // A worker killed mid-scan leaves its lock behind: nobody scans until it runs out, then one does.
    const lockedAt = Date.now();
    await redis.set(store.keys.lock('fakedev'), 'a-dead-worker', 'PX', 1200);
    const late = transfer(to, 99n);
    chain.mine(late);
    // A scan job ran meanwhile and stood back: the cursor did not move.
    await until(async () =>
      (await queue.getJobs(['completed'])).some((j) => (j.finishedOn ?? 0) > lockedAt && (j.returnvalue as { skipped?: string })?.skipped !== undefined),
    );
    expect((await store.cursor('fakedev'))?.height).toBe(chain.height - 1);
    await until(async () => (await store.cursor('fakedev'))?.height === chain.height);
    chain.mineEmpty(1);
    await until(async () => (await events()).filter((e) => e.type === 'deposit.confirmed').length === 7);
    const detected = (await events()).filter((e) => e.type === 'deposit.detected').map((e) => e.deposit.baseUnits);
    expect(detected).toEqual(['1', '2', '3', '4', '5', '6', '99']);
  });
});
