import { Queue, type ConnectionOptions } from 'bullmq';
import type { Config } from '../config/load-config.js';
import { jobOptions } from '../withdrawals/jobs/queues.js';
import type { Delivery } from './delivery-store.js';
import { queuePrefix } from '../platform/redis-keys.js';

export const WEBHOOK_QUEUE = 'webhooks';
export const BACKOFF_TYPE = 'webhook';

/**
 * A delivery job. The worker reloads the delivery by id (job data is editable from the
 * dashboard); the other fields are there so an operator sees what a job is about.
 */
export interface DeliveryJob {
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  withdrawalId?: string;
  operationID?: string;
  sequence?: number;
}

export type WebhookQueue = Queue<DeliveryJob>;

/** BullMQ job ids may not contain ':'; subscription and event ids are UUIDs. */
export const deliveryId = (subscriptionId: string, eventId: string): string => `${subscriptionId}-${eventId}`;

export function deliveryJob(d: Delivery): DeliveryJob {
  return {
    deliveryId: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    ...(d.sequence !== undefined ? { withdrawalId: d.orderKey, sequence: d.sequence } : {}),
    ...(d.operationID ? { operationID: d.operationID } : {}),
  };
}

type Schedule = Pick<Config, 'webhookBackoffMs' | 'webhookBackoffMaxMs' | 'webhookRetrySeconds'>;

/** Wait before attempt `attemptsMade + 1`: doubling from the first wait, capped. */
export function backoffDelay(config: Schedule, attemptsMade: number): number {
  return Math.min(config.webhookBackoffMs * 2 ** Math.max(0, attemptsMade - 1), config.webhookBackoffMaxMs);
}

/** Attempts whose waits add up to at least the retry window. */
export function deliveryAttempts(config: Schedule): number {
  let waited = 0;
  let attempts = 1;
  while (waited < config.webhookRetrySeconds * 1000) waited += backoffDelay(config, attempts++);
  return attempts;
}

/** The one place delivery jobs are added: the delivery id is the job id, so a repeat adds nothing. */
export async function addDeliveryJob(queue: WebhookQueue, d: Delivery): Promise<void> {
  await queue.add(d.type, deliveryJob(d), { jobId: d.id });
}

export function createWebhookQueue(connection: ConnectionOptions, config: Config): WebhookQueue {
  return new Queue<DeliveryJob>(WEBHOOK_QUEUE, {
    connection,
    prefix: queuePrefix(config.keyPrefix),
    defaultJobOptions: { ...jobOptions(config), attempts: deliveryAttempts(config), backoff: { type: BACKOFF_TYPE } },
  });
}
