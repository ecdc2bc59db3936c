import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import { processDelivery } from './delivery-job.js';
import { DeliveryStore } from './delivery-store.js';
import { startOutboxDispatcher } from './outbox-dispatcher.js';
import { SubscriptionStore } from './subscription-store.js';
import { closeClient, redisClient } from '../platform/redis.js';
import { queuePrefix, webhookKeys } from '../platform/redis-keys.js';
import { STALLS_ALLOWED, workersReady } from '../withdrawals/jobs/queues.js';
import { backoffDelay, createWebhookQueue, WEBHOOK_QUEUE, type DeliveryJob, type WebhookQueue } from './webhook-queue.js';
import { WebhookService } from './webhook-service.js';

export interface Webhooks {
  service: WebhookService;
  queue: WebhookQueue;
  /** The delivery worker and the outbox dispatcher (worker processes). */
  start(): Promise<{ running(): boolean; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** Webhooks to the integrator, built from the shared Redis client and key prefix. */
export function createWebhooks(opts: { redis: Redis; prefix: string; outboxKey: string; config: Config; logger: Logger }): Webhooks {
  const { redis, prefix, config, logger } = opts;
  const keys = webhookKeys(prefix);
  const queue = createWebhookQueue(redis, config);
  queue.on('error', (err) => logger.debug({ err: err.message, queue: WEBHOOK_QUEUE }, 'queue connection error'));
  const service = new WebhookService({ config, logger, subscriptions: new SubscriptionStore(redis, keys), deliveries: new DeliveryStore(redis, keys), queue });
  return {
    service,
    queue,
    start: async () => {
      // redisClient reads a redis+cluster:// URL too; BullMQ's blocking worker must retry forever.
      const connection = redisClient(config.redisUrl, { maxRetriesPerRequest: null, connectionName: 'byow-webhooks' });
      connection.on('error', (err: Error) => logger.debug({ err: err.message }, 'webhook worker connection error'));
      const lockDuration = Math.max(config.jobLockMs, config.webhookTimeoutMs * 2);
      const worker = new Worker<DeliveryJob>(WEBHOOK_QUEUE, (job: Job<DeliveryJob>) => processDelivery(service, job), {
        connection,
        prefix: queuePrefix(config.keyPrefix),
        concurrency: config.workerConcurrency,
        lockDuration,
        // A dead worker's delivery goes on within about two checks after its lock ran out (one
        // marks it, the next moves it), as the pipeline's jobs do; BullMQ's own 30 s would hold
        // it, and every later event of its withdrawal or deposit, for up to a minute.
        stalledInterval: Math.max(1000, Math.floor(lockDuration / 2)),
        maxStalledCount: STALLS_ALLOWED,
        settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(config, attemptsMade) },
      });
      worker.on('error', (err) => logger.error({ err: err.message, queue: WEBHOOK_QUEUE }, 'worker error'));
      await workersReady(worker);
      const dispatcher = startOutboxDispatcher({ redis, outboxKey: opts.outboxKey, service, logger });
      return {
        running: () => worker.isRunning() && !worker.closing,
        close: async () => {
          await dispatcher.stop();
          await worker.close();
          await closeClient(connection);
        },
      };
    },
    close: () => queue.close(),
  };
}
