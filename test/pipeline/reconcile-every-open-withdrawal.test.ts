import { afterAll, describe, expect, it, vi } from 'vitest';
import { processReconcile, type ReconcileLimits } from '../../src/withdrawals/jobs/reconcile-job.js';
import { key, payload } from '../helpers/operation-kit.js';
import { reconcileHarness, signOperation, waitingOperation } from './reconcile-support.js';
import { until } from './support.js';

const MINUTE = 60_000;

/**
 * Withdrawals stay in the open index for long (up to SIGN_TIMEOUT_SECONDS waiting for their
 * quorum, SIGNED while a node is down): reconciliation walks the whole index, a bounded part per
 * run, so none waits behind older ones for more than a bounded number of runs.
 */
describe('reconciliation reaches every open withdrawal', () => {
  const h = reconcileHarness();
  afterAll(() => h.cleanup());

  /** `n` withdrawals waiting for their quorum, one second apart, oldest first, created `minutesAgo`. */
  const waiting = async (n: number, minutesAgo = 10, label = 'wait') => {
    const k = key();
    const base = Date.now() - minutesAgo * MINUTE;
    const ops = [];
    for (let i = 0; i < n; i++) {
      const op = waitingOperation([payload(k, 0)], `${label}-${i}`, new Date(base + i * 1000));
      await h.store.create(op);
      ops.push(op);
    }
    return ops;
  };

  /** Runs reconciliation and returns the custody lookups it made. */
  const run = async (limits?: ReconcileLimits) => {
    const from = h.lookups.length;
    const tally = await processReconcile(h.deps, limits);
    return { tally, lookups: h.lookups.slice(from) };
  };

  it('a sign operation declined behind 100 older withdrawals still waiting for their quorum ends FAILED in one run', async () => {
    const ops = await waiting(101, 10, 'behind');
    const newest = ops[100]!;
    h.custody.answer = async (id) => signOperation(id, id === newest.operationID ? 'DECLINED' : 'PENDING');
    const { tally, lookups } = await run();
    expect(lookups).toContain(newest.operationID);
    expect(tally).toMatchObject({ checked: 101, failed: 1 });
    const after = await h.store.get(newest.id);
    expect({ status: after.status, released: h.released.includes(newest.id) }).toEqual({ status: 'FAILED', released: true });
    // Done with them: out of the way of the next tests.
    for (const op of ops.slice(0, 100)) await h.store.transition(op.id, ['EXECUTING'], 'FAILED');
    expect(await run()).toMatchObject({ lookups: [] });
  });

  it('a run stops at its lookup budget, the next goes on where it stopped, and after the last one the walk starts again from the oldest', async () => {
    const ops = await waiting(7, 9, 'budget');
    const ids = ops.map((o) => o.operationID);
    const limits: ReconcileLimits = { pageSize: 2, lookups: 3, concurrency: 2, runMs: 60_000 };
    // A lookup is answered once two have been asked at once, or once the run has asked its
    // whole budget (the last may be alone): a run that asks one at a time never gets to two.
    let runStart = 0;
    h.custody.answer = async (id) => {
      await until('two lookups at once, or the run budget asked', () => h.custody.mostInFlight === 2 || h.lookups.length - runStart === limits.lookups).catch(
        () => undefined,
      );
      return signOperation(id, 'PENDING');
    };
    h.custody.mostInFlight = 0;
    const runs = [];
    for (let i = 0; i < 4; i++) {
      runStart = h.lookups.length;
      runs.push((await run(limits)).lookups.sort());
    }
    expect(runs).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6), ids.slice(0, 3)].map((r) => r.sort()));
    expect(h.custody.mostInFlight).toBe(2);
    for (const op of ops) await h.store.transition(op.id, ['EXECUTING'], 'FAILED');
    await h.store.saveReconcileCursor(undefined);
  });

  it('a run stops starting checks once its time is spent; the next run goes on where it stopped', async () => {
    const ops = await waiting(6, 8, 'time');
    // The first lookup takes the whole run's time (the clock moves past it while custody answers).
    const realNow = Date.now.bind(Date);
    let skew = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
    h.custody.answer = async (id) => {
      skew += 2 * MINUTE;
      return signOperation(id, 'PENDING');
    };
    const limits: ReconcileLimits = { pageSize: 100, lookups: 1000, concurrency: 1, runMs: MINUTE };
    const first = (await run(limits)).lookups;
    clock.mockRestore();
    h.custody.answer = async (id) => signOperation(id, 'PENDING');
    expect(first).toEqual([ops[0]!.operationID]);
    const second = (await run(limits)).lookups;
    expect([...first, ...second]).toEqual(ops.map((o) => o.operationID));
    for (const op of ops) await h.store.transition(op.id, ['EXECUTING'], 'FAILED');
  });

  it('pages go on after the last entry seen, whether it has left the index meanwhile or shares its millisecond with others', async () => {
    const k = key();
    const at = new Date(Date.now() - 7 * MINUTE);
    const ops = [];
    for (let i = 0; i < 5; i++) {
      const op = waitingOperation([payload(k, 0)], `tie-${i}`, at);
      await h.store.create(op);
      ops.push(op);
    }
    const sorted = ops.map((o) => o.id).sort();
    const first = await h.store.openPage(Date.now(), 2);
    expect(first.map((e) => e.id)).toEqual(sorted.slice(0, 2));
    // The cursor's withdrawal is settled before the next page is read.
    await h.store.transition(first[1]!.id, ['EXECUTING'], 'FAILED');
    const second = await h.store.openPage(Date.now(), 2, first[1]);
    expect(second.map((e) => e.id)).toEqual(sorted.slice(2, 4));
    expect(await h.store.openPage(Date.now(), 2, second[1])).toEqual([{ id: sorted[4], ms: at.getTime() }]);
    expect(await h.store.openPage(at.getTime() - 1, 2)).toEqual([]);
  });
});
