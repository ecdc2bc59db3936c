import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConfirmJob, confirmJobId } from '../../src/withdrawals/jobs/queues.js';
import type { Workers } from '../../src/withdrawals/jobs/workers.js';
import { queuePrefix } from '../../src/platform/redis-keys.js';
import { freePort } from '../../src/dev/free-port.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { fakeOperation } from '../webhooks/support.js';
import { until } from './support.js';

/**
 * A worker process that dies (SIGKILL, OOM, a lost machine) while a job is active leaves the
 * job locked until JOB_LOCK_MS; it is then "stalled" and another worker takes it. BullMQ counts
 * stalls over a job's whole life, and a confirm job polls for hours: two such deaths must not
 * fail it for good, or its withdrawal stays BROADCAST forever (never CONFIRMED, no webhook).
 */
describe('a confirm job whose worker died twice', () => {
  let svc: TestService;
  let workers: Workers | undefined;
  let crashConn: Redis;

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true, env: { JOB_LOCK_MS: '2000' } });
    crashConn = new Redis(svc.core.config.redisUrl, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await workers?.close();
    crashConn?.disconnect();
    await svc?.stop();
  });

  it('is taken up again, not failed for good', async () => {
    const { store } = svc.pipeline!.deps;
    const queues = svc.pipeline!.deps.queues;
    const op = fakeOperation();
    await store.create(op);
    await store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['0x01'] }));
    const broadcast = (await store.transition(op.id, ['SIGNED'], 'BROADCAST'))!;
    await addConfirmJob(queues, broadcast, 0);

    // A worker process that takes the job and dies (no lock renewal, no completion): twice.
    const dying = new Worker('confirm', null, {
      connection: crashConn,
      prefix: queuePrefix(svc.core.config.keyPrefix),
      lockDuration: 300,
      stalledInterval: 300,
      maxStalledCount: 1,
    });
    const check = () => (dying as unknown as { moveStalledJobsToWait(): Promise<unknown> }).moveStalledJobsToWait();
    const id = confirmJobId(op.id);
    const lockKey = `${queuePrefix(svc.core.config.keyPrefix)}:confirm:${id}:lock`;
    const first = await dying.getNextJob(randomUUID());
    expect(first?.id).toBe(id);
    expect(await crashConn.exists(lockKey)).toBe(1);
    await until('the dead worker’s lock to expire', async () => (await crashConn.exists(lockKey)) === 0);
    // As any live worker's checker does: the first pass marks it, a later one finds the lock gone
    // and puts it back to wait (stalled once).
    await until('the stalled checker to put the job back', async () => {
      await check();
      return (await queues.confirm.getJob(id))?.getState().then((s) => s === 'waiting');
    });
    const second = await dying.getNextJob(randomUUID());
    expect(second?.id).toBe(id);
    await dying.close(true).catch(() => undefined);

    // A healthy worker process comes up; its stalled checker finds the job a second time, and
    // then either fails it for good or puts it back, and a healthy worker takes it (a third start).
    workers = await svc.pipeline!.startWorkers();
    const job = await until(
      'the healthy worker’s stalled checker to settle the job',
      async () => {
        const j = await queues.confirm.getJob(id);
        return j && (j.attemptsStarted >= 3 || (await j.getState()) === 'failed') ? j : undefined;
      },
      30_000,
    );
    expect(job.stalledCounter).toBe(2);
    const after = `${await job.getState()} (${job.failedReason ?? ''}), withdrawal ${(await store.get(op.id)).status}`;
    expect(after, after).not.toMatch(/^failed/);
    expect(job.failedReason ?? '').not.toMatch(/stalled/);
  });
});
