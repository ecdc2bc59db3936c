import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConfirmJob, confirmJobId, confirmRetryDelayMs, CONFIRM_ATTEMPTS, CONFIRM_RETRY_MAX_MS } from '../../src/withdrawals/jobs/queues.js';
import type { Workers } from '../../src/withdrawals/jobs/workers.js';
import { freePort } from '../../src/dev/free-port.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from './support.js';
import { fakeOperation } from '../webhooks/support.js';

/**
 * A confirm job is the only thing that ends a BROADCAST withdrawal. Its real errors (node
 * timeouts, 429s, Redis blips) add up over its whole life, so neither their number nor the
 * wait after the latest may grow without bound: a long node outage must cost a few minutes
 * after the node is back, never a day, and never the withdrawal's confirmation.
 */
describe('confirm job retries', () => {
  it('the wait after an error doubles from 1 s and is capped at a few minutes, jittered within its upper half', () => {
    expect([1, 2, 3, 4].map((n) => confirmRetryDelayMs(n, 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3].map((n) => confirmRetryDelayMs(n, 0.999999))).toEqual([999, 1999, 3999]);
    expect(CONFIRM_RETRY_MAX_MS).toBeLessThanOrEqual(10 * 60_000);
    // 17 errors waited 9-18 h without the cap; 50, a thousand or a million errors wait the cap.
    for (const n of [10, 17, 50, 1000, 1_000_000]) {
      for (const r of [0, 0.5, 0.999999]) {
        const d = confirmRetryDelayMs(n, r);
        expect(d).toBeGreaterThanOrEqual(CONFIRM_RETRY_MAX_MS / 2);
        expect(d).toBeLessThan(CONFIRM_RETRY_MAX_MS);
      }
    }
  });

  describe('through BullMQ, with the node down', () => {
    let svc: TestService;
    let workers: Workers | undefined;

    beforeAll(async () => {
      // Nothing listens at the node's address: every look at the chain is a real error.
      svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true });
    });
    afterAll(async () => {
      await workers?.close();
      await svc?.stop();
    });

    it('a job that has met a thousand errors is retried again, within the cap', async () => {
      const { store, queues } = svc.pipeline!.deps;
      const op = fakeOperation();
      await store.create(op);
      await store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['0x01'] }));
      const broadcast = (await store.transition(op.id, ['SIGNED'], 'BROADCAST'))!;
      const job = await addConfirmJob(queues, broadcast, 0);
      // Its life so far: a thousand errors (a long outage).
      const client = await queues.confirm.client;
      await client.hset(queues.confirm.toKey(job.id!), { atm: 1000 });

      workers = await svc.pipeline!.startWorkers();
      const id = confirmJobId(op.id);
      await until('the job failed once more', async () => ((await queues.confirm.getJob(id))?.attemptsMade ?? 0) > 1000, 15_000);
      const after = (await queues.confirm.getJob(id))!;
      expect([await after.getState(), after.failedReason]).toEqual(['delayed', expect.stringMatching(/./)]);
      expect(after.delay).toBeGreaterThanOrEqual(CONFIRM_RETRY_MAX_MS / 2);
      expect(after.delay).toBeLessThan(CONFIRM_RETRY_MAX_MS);
      expect((await store.get(op.id)).status).toBe('BROADCAST');
      // No practical limit: a billion tries, each past the first few at least half the cap apart.
      expect(after.opts.attempts).toBe(CONFIRM_ATTEMPTS);
      expect(CONFIRM_ATTEMPTS * (CONFIRM_RETRY_MAX_MS / 2)).toBeGreaterThan(1000 * 365 * 86_400_000);
    });
  });
});
