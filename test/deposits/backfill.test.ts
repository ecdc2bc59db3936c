import pino from 'pino';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/load-config.js';
import { BackfillScanner } from '../../src/deposits/backfill.js';
import { backfillJobName, createBackfillQueue, enqueueBackfill, startBackfillWorker } from '../../src/deposits/backfill-jobs.js';
import { BackfillStore, type BackfillView } from '../../src/deposits/backfill-store.js';
import { parseDepositEntry, type DepositEvent } from '../../src/deposits/deposit-events.js';
import { UNWIND_BLOCK } from '../../src/deposits/deposit-scripts.js';
import { createBackfills } from '../../src/deposits/backfills.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import type { DepositSource } from '../../src/ledger/deposit-source.js';
import type { LedgerRegistry } from '../../src/ledger/registry.js';
import type { AppError } from '../../src/platform/errors.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import { singleAddress } from '../../src/vaults/vault-addresses.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { testRedis } from '../helpers/redis.js';
import { bip44Vault, FakeChain, fakeAdaptor, singleVault, transfer } from './fake-chain.js';

const logger = pino({ level: 'silent' });
const FAR = () => Date.now() + 60_000;

/** Polls `check` until it holds; each look reads Redis, never a fixed sleep before asserting. */
async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("back-fill of a vault's earlier deposits, on a chain in memory", () => {
  const { redis, prefix: base, url } = testRedis();
  afterAll(() => redis.disconnect());
  let n = 0;
  let prefix: string;
  let chain: FakeChain;
  let store: DepositStore;
  let backfills: BackfillStore;
  let vaults: VaultStore;
  const adaptor = fakeAdaptor(3);
  const live = () => new LedgerScanner(adaptor, chain, { store, vaults, logger }, { window: 10, gapLimit: 5, refreshMs: 60_000, startAfter: 0 });
  const backfiller = () => new BackfillScanner(adaptor, chain, { backfills, vaults, logger }, { gapLimit: 5 });
  const scan = (s = live()) => s.pass({ maxBlocks: 1000, deadline: FAR() });
  const fill = (b: BackfillView, s = backfiller()) => s.pass(b, { maxBlocks: 1000, deadline: FAR() });
  const events = async (): Promise<DepositEvent[]> => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));
  const kinds = async () => (await events()).map((e) => `${e.type.slice(8)} ${e.depositId.split(':')[1]} #${e.sequence}`);
  /** Starts a back-fill from `from` to where the live scan is, as the route does. */
  const startFrom = async (vaultId: string, from: number) => backfills.start('fakedev', vaultId, from, (await store.cursor('fakedev'))!.height);

  beforeEach(() => {
    prefix = `${base}${++n}:`;
    chain = new FakeChain();
    store = new DepositStore(redis, prefix);
    backfills = new BackfillStore(redis, prefix);
    vaults = new VaultStore(redis, prefix);
  });

  it('finds payments made before the vault was registered, confirms the deep ones at once and the rest as the live scan goes on, each once; one the live scan found too is not doubled', async () => {
    const v = singleVault('v1');
    const to = singleAddress(adaptor, v).address;
    const s = live();
    const early = transfer(to, 1n);
    const later = transfer(to, 2n);
    chain.mine(early);
    chain.mine(later);
    await scan(s);
    expect(await kinds()).toEqual([]);
    await vaults.create(v);
    const both = transfer(to, 3n);
    chain.mine(both);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${both.txid} #1`]);

    const b = await startFrom('v1', 1);
    expect(b).toMatchObject({ fromHeight: 1, toHeight: 3, height: 0, state: 'RUNNING' });
    expect(await fill(b)).toEqual({ applied: 3, done: true });
    // Block 1 is 3 deep as the live scan counts: confirmed in the back-fill's own step.
    expect(await kinds()).toEqual([`detected ${both.txid} #1`, `detected ${early.txid} #1`, `confirmed ${early.txid} #2`, `detected ${later.txid} #1`]);
    expect(await backfills.get('v1')).toMatchObject({ state: 'DONE', height: 3, found: 3, detected: 2 });
    expect(await store.get(`fakedev:${early.txid}:out:0`, 3)).toMatchObject({ state: 'CONFIRMED', confirmations: 3, blockHeight: 1, vaultId: 'v1' });

    chain.mineEmpty(2);
    await scan(s);
    const byDeposit = (await events()).reduce<Record<string, string[]>>((m, e) => ({ ...m, [e.depositId]: [...(m[e.depositId] ?? []), e.type] }), {});
    expect(Object.values(byDeposit)).toEqual([
      ['deposit.detected', 'deposit.confirmed'],
      ['deposit.detected', 'deposit.confirmed'],
      ['deposit.detected', 'deposit.confirmed'],
    ]);
    // Its list shows each once.
    expect((await store.idsNewestFirst({ vaultId: 'v1', fromMs: 0, toMs: Number.MAX_SAFE_INTEGER, count: 10 })).length).toBe(3);
  });

  it("reads the vault's addresses only, leaves out its own transfers, and follows a BIP44 vault's addresses as they are used", async () => {
    const a = bip44Vault('a');
    const other = singleVault('other');
    await vaults.create(other);
    const a0 = a.addressAt(adaptor, 0, 0);
    const far = a.addressAt(adaptor, 0, 7);
    const toOther = transfer(singleAddress(adaptor, other).address, 5n);
    const first = transfer(a.addressAt(adaptor, 0, 4), 10n);
    const beyond = transfer(far, 11n);
    const own = transfer(a.addressAt(adaptor, 1, 0), 12n, { from: [a0] });
    chain.mine(first);
    chain.mine(beyond, own);
    const s = live();
    await scan(s);
    await vaults.create(a.record);
    await scan(s);
    // Nothing of a's: its blocks were read before it was registered.
    expect(await kinds()).toEqual([]);
    chain.mine(toOther);
    await scan(s);
    await fill(await startFrom('a', 1));
    // Index 7 is beyond the gap limit (5) until index 4 is used: the back-fill's watched window moves with it.
    expect((await events()).filter((e) => e.vaultId === 'a').map((e) => `${e.type} ${e.deposit.txid} ${e.deposit.path}`)).toEqual([
      `deposit.detected ${first.txid} 0/4`,
      `deposit.confirmed ${first.txid} 0/4`,
      `deposit.detected ${beyond.txid} 0/7`,
    ]);
    expect(await backfills.get('a')).toMatchObject({ found: 2, detected: 2 });
  });

  it('waits while the live scan holds another block at a height (a reorganisation), and a back-filled deposit whose block leaves the chain is REVERTED by the live scan', async () => {
    const v = singleVault('v1');
    const to = singleAddress(adaptor, v).address;
    const s = live();
    chain.mineEmpty(1);
    const gone = transfer(to, 7n);
    chain.mine(gone);
    chain.mineEmpty(1);
    await scan(s);
    await vaults.create(v);
    const b = await startFrom('v1', 1);
    expect(await fill(b)).toEqual({ applied: 3, done: true });
    expect(await kinds()).toEqual([`detected ${gone.txid} #1`]);
    // Block 2 replaced: the live scan takes it off; once the new chain is as high, the deposit is REVERTED.
    chain.rewindTo(1);
    chain.mineEmpty(3);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${gone.txid} #1`, `reverted ${gone.txid} #2`]);

    // A back-fill that reads the new chain before the live scan knows of it waits for it.
    const came = transfer(to, 8n);
    chain.rewindTo(3);
    chain.mine(came);
    chain.mineEmpty(1);
    const again = await backfills.start('fakedev', 'v1', 4, 5);
    const waits = await fill(again);
    expect(waits).toMatchObject({ applied: 0, done: false, waiting: expect.stringContaining('another block at height 4') });
    expect(await backfills.get('v1')).toMatchObject({ height: 3, waiting: expect.stringContaining('reorganisation') });
    await scan(s);
    expect(await fill(again)).toEqual({ applied: 2, done: true });
    expect((await backfills.get('v1'))?.waiting).toBeUndefined();
    // The live scan had found it meanwhile: one deposit, one event.
    expect((await kinds()).filter((k) => k.includes(came.txid))).toEqual([`detected ${came.txid} #1`]);
  });

  it("a live unwind that read a block's deposits before a back-fill added one to it reads them again", async () => {
    const v = singleVault('v1');
    const to = singleAddress(adaptor, v).address;
    const s = live();
    chain.mineEmpty(1);
    const paid = transfer(to, 4n);
    chain.mine(paid);
    await scan(s);
    await vaults.create(v);
    const k = store.keys;
    const at = (await store.cursor('fakedev'))!;
    // The live scan read block 2's deposits (none), then the back-fill wrote one there.
    await fill(await startFrom('v1', 1));
    const stale = await UNWIND_BLOCK.run(
      redis,
      [k.cursor('fakedev'), k.blocks('fakedev'), k.window('fakedev'), k.unconfirmed('fakedev'), k.orphans('fakedev')],
      [at.height, at.hash, at.height, new Date().toISOString()],
    );
    expect(stale).toBe(0);
    // Read afresh, the deposit goes with its block.
    expect(await store.unwind('fakedev', at, at.height)).toBe('done');
    expect(await redis.hget(k.deposit(`fakedev:${paid.txid}:out:0`), 'orphaned')).toBe('1');
  });

  it('goes on after a pass cut short (the node failing mid-way, two passes at once), and a newer back-fill replaces an older one', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const to = singleAddress(adaptor, v).address;
    const paid = Array.from({ length: 6 }, (_, i) => transfer(to, BigInt(i + 1)));
    for (const t of paid) chain.mine(t);
    // The live scan starts after the payments (its first cursor at block 6).
    await store.initCursor('fakedev', chain.blocks[6]!);
    chain.mineEmpty(1);
    await scan();
    expect(await kinds()).toEqual([]);

    const b = await startFrom('v1', 1);
    chain.failAt = 3;
    expect(await fill(b)).toMatchObject({ applied: 2, done: false, waiting: expect.stringContaining('socket hang up') });
    expect(await backfills.get('v1')).toMatchObject({ height: 2, state: 'RUNNING', waiting: expect.stringContaining('node does not answer') });
    // Two workers take it up at once: each block is written once.
    const [x, y] = await Promise.all([fill(b), fill(b)]);
    expect([x.done, y.done]).toEqual([true, true]);
    expect(x.applied + y.applied).toBe(5);
    expect((await events()).filter((e) => e.type === 'deposit.detected').map((e) => e.deposit.baseUnits)).toEqual(['1', '2', '3', '4', '5', '6']);

    // A newer back-fill replaces it: a job of the older one stops at its next step.
    const older = await startFrom('v1', 1);
    const newer = await startFrom('v1', 5);
    expect(await fill(older)).toMatchObject({ applied: 0, done: false, over: expect.stringContaining('replaced') });
    expect(await fill(newer)).toEqual({ applied: 3, done: true });
    expect(await backfills.get('v1')).toMatchObject({ backfillId: newer.backfillId, fromHeight: 5, found: 2, detected: 0 });
    // Six detected, the five that were deep enough confirmed, nothing more.
    expect((await events()).length).toBe(11);
  });

  it('stops when the vault is removed', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    chain.mineEmpty(2);
    await scan();
    const b = await startFrom('v1', 1);
    await vaults.remove('v1');
    expect(await fill(b)).toMatchObject({ done: false, over: expect.stringContaining('no longer registered') });
    expect(await backfills.get('v1')).toMatchObject({ state: 'STOPPED', error: expect.stringContaining('no longer registered') });
  });

  it('runs as a job of its own queue, named for the dashboard, to the end', async () => {
    const config = {
      redisUrl: url,
      keyPrefix: prefix.replace(/:$/, ''),
      depositPollMs: 100,
      jobLockMs: 2000,
      retainCompletedJobs: 10,
      retainFailedJobs: 10,
    } as Config;
    const queue = createBackfillQueue(redis, config);
    const worker = await startBackfillWorker({ config, logger, store: backfills, scanners: new Map([['fakedev', backfiller()]]) });
    try {
      const v = singleVault('v1');
      const to = singleAddress(adaptor, v).address;
      chain.mine(transfer(to, 9n));
      chain.mineEmpty(1);
      await scan();
      await vaults.create(v);
      // The node fails once on the way: the job waits and goes on.
      chain.failAt = 2;
      await enqueueBackfill(queue, await startFrom('v1', 1));
      await until(async () => (await backfills.get('v1'))?.state === 'DONE');
      expect(await backfills.get('v1')).toMatchObject({ found: 1, detected: 1 });
      await until(async () => (await queue.getJobs(['completed'])).length === 1);
      const [job] = await queue.getJobs(['completed']);
      expect(job?.name).toBe(backfillJobName('fakedev', 'v1'));
      expect(job?.name).toBe('backfill deposits fakedev v1');
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('a worker killed mid-way leaves the job stalled: another worker takes it up from the cursor, each deposit told once', async () => {
    const config = {
      redisUrl: url,
      keyPrefix: prefix.replace(/:$/, ''),
      depositPollMs: 100,
      jobLockMs: 1000,
      retainCompletedJobs: 10,
      retainFailedJobs: 10,
    } as Config;
    const queue = createBackfillQueue(redis, config);
    const v = singleVault('v1');
    const to = singleAddress(adaptor, v).address;
    for (let i = 1; i <= 12; i++) chain.mine(transfer(to, BigInt(i)));
    await scan();
    await vaults.create(v);
    // The first worker's node stops answering at block 6 and never comes back: the worker is as good as dead.
    let reached: () => void;
    const stuck = new Promise<void>((r) => (reached = r));
    const dying: DepositSource = {
      tip: () => chain.tip(),
      block: async (h) => {
        if (h < 6) return chain.block(h);
        reached();
        return new Promise<undefined>(() => undefined);
      },
    };
    const first = await startBackfillWorker({
      config,
      logger,
      store: backfills,
      scanners: new Map([['fakedev', new BackfillScanner(adaptor, dying, { backfills, vaults, logger }, { gapLimit: 5 })]]),
    });
    let second: Awaited<ReturnType<typeof startBackfillWorker>> | undefined;
    try {
      await enqueueBackfill(queue, await startFrom('v1', 1));
      await stuck;
      expect(await backfills.get('v1')).toMatchObject({ height: 5, state: 'RUNNING' });
      // Killed: its lock is no longer renewed.
      await first.close(true);
      second = await startBackfillWorker({ config, logger, store: backfills, scanners: new Map([['fakedev', backfiller()]]) });
      await until(async () => (await backfills.get('v1'))?.state === 'DONE');
      expect(await backfills.get('v1')).toMatchObject({ height: 12, found: 12, detected: 12 });
      const detected = (await events()).filter((e) => e.type === 'deposit.detected').map((e) => e.deposit.baseUnits);
      expect(detected).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
      await until(async () => (await queue.getJobs(['completed'])).length === 1);
    } finally {
      await second?.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('asked for: refused past the live scan, before it started, and for a vault of a ledger without deposits', async () => {
    const config = { redisUrl: url, keyPrefix: prefix.replace(/:$/, ''), retainCompletedJobs: 10, retainFailedJobs: 10 } as Config;
    const scanned = { ...adaptor, depositSource: chain } as LedgerAdaptor;
    const other = { ...fakeAdaptor(3), ledgerId: 'plain' } as LedgerAdaptor;
    const registry = { list: () => [scanned, other] } as unknown as LedgerRegistry;
    const asked = createBackfills({ redis, prefix, config, logger, registry, vaults });
    try {
      await vaults.create(singleVault('v1'));
      await vaults.create({ ...singleVault('p1'), ledgerId: 'plain' });
      chain.mineEmpty(3);
      const refusal = (vaultId: string, from: number) => asked.request(vaultId, from).catch((e: AppError) => [e.status, e.errCode, e.details]);
      expect(await refusal('v1', 1)).toEqual([409, 'ERR_CONFLICT', expect.stringContaining('The deposit scan of fakedev has not started yet')]);
      await store.initCursor('fakedev', chain.blocks[2]!);
      expect(await refusal('v1', 3)).toEqual([
        422,
        'ERR_INVALID_ARGUMENTS',
        'fromHeight 3 is after the blocks the deposit scan of fakedev has read (up to 2): the scan reads those itself',
      ]);
      expect(await refusal('v1', 4)).toEqual([422, 'ERR_INVALID_ARGUMENTS', 'fromHeight 4 is beyond the tip of fakedev (block 3)']);
      expect(await refusal('p1', 1)).toEqual([
        422,
        'ERR_INVALID_ARGUMENTS',
        "Vault 'p1' is on ledger plain, which has no deposit scan. Ledgers with one: fakedev",
      ]);
      chain.down = true;
      expect(await refusal('v1', 1)).toEqual([503, 'ERR_UNAVAILABLE', expect.stringContaining('The fakedev node does not answer')]);
      chain.down = false;
      expect(await asked.request('v1', 2)).toMatchObject({ fromHeight: 2, toHeight: 2, state: 'RUNNING' });
      expect((await asked.queue.getJobs(['waiting'])).map((j) => j.name)).toEqual(['backfill deposits fakedev v1']);
    } finally {
      await asked.queue.obliterate({ force: true });
      await asked.close();
    }
  });
});
