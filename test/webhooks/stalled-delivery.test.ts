import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { queuePrefix } from '../../src/platform/redis-keys.js';
import { WEBHOOK_QUEUE } from '../../src/webhooks/webhook-queue.js';
import { ADMIN_KEY, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../pipeline/support.js';
import { startReceiver } from './support.js';

/**
 * A worker process killed while it delivers a webhook leaves the delivery job locked; another
 * worker's stalled-job check puts it back once the lock ran out. BullMQ's check runs every 30 s
 * unless told otherwise, and needs two passes (one marks, the next moves): a delivery (and every
 * later event of its withdrawal or deposit, which waits behind it) would wait up to a minute.
 * The webhook worker checks at half its lock, as the pipeline's workers do.
 */
describe('a webhook delivery whose worker died', () => {
  let svc: TestService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let crashConn: Redis;
  let started: { close(): Promise<void> } | undefined;

  beforeAll(async () => {
    // JOB_LOCK_MS and twice WEBHOOK_TIMEOUT_MS are 2 s: the delivery's lock.
    svc = await startTestService(
      { ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } },
      { pipeline: true, env: { JOB_LOCK_MS: '2000', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' } },
    );
    receiver = await startReceiver();
    crashConn = new Redis(svc.core.config.redisUrl, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await started?.close();
    crashConn?.disconnect();
    await receiver?.close();
    await svc?.stop();
  });

  it('is delivered by another worker within a few lock lengths, not after the default 30 s checks', async () => {
    const sub = await svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url: receiver.url, events: ['*'] } });
    expect(sub.status).toBe(201);
    expect((await svc.call('POST', `/api/v1.0/admin/webhooks/${sub.body.id}/test`, { key: ADMIN_KEY })).status).toBeLessThan(300);

    // A worker takes the delivery and dies: no lock renewal, no completion.
    const dying = new Worker(WEBHOOK_QUEUE, null, { connection: crashConn, prefix: queuePrefix(svc.core.config.keyPrefix), lockDuration: 2000 });
    const taken = await dying.getNextJob(randomUUID());
    expect(taken).toBeDefined();
    await dying.close(true).catch(() => undefined);

    const takenAt = Date.now();
    started = await svc.pipeline!.webhooks.start();
    await until('the test event delivered by the live worker', () => receiver.received.some((r) => r.body?.type === 'webhook.test'), 12_000);
    expect(Date.now() - takenAt).toBeLessThan(12_000);
  });
});
