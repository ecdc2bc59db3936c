import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import { ConflictError, NotFoundError } from '../platform/errors.js';
import type { DepositEvent } from '../deposits/deposit-events.js';
import type { WithdrawalEvent } from '../withdrawals/store/outbox.js';
import type { Delivery, DeliveryStore } from './delivery-store.js';
import type { Subscription, SubscriptionStore } from './subscription-store.js';
import { wants } from './subscription-store.js';
import { checkWebhookTarget, parseWebhookUrl } from './url-guard.js';
import { addDeliveryJob, deliveryId, type WebhookQueue } from './webhook-queue.js';

/** A dispatched event is recognised again for this long (the dispatcher re-reads an entry it did not finish). */
const DEDUPE_SECONDS = 7 * 86_400;

export interface WebhookDeps {
  config: Config;
  logger: Logger;
  subscriptions: SubscriptionStore;
  deliveries: DeliveryStore;
  queue: WebhookQueue;
}

/** Private addresses are allowed when configured, and by default in the sandbox. */
export function allowPrivate(config: Pick<Config, 'webhookAllowPrivate' | 'sandboxProfile'>): boolean {
  return config.webhookAllowPrivate ?? config.sandboxProfile;
}

/** What the admin routes and the dispatcher do with subscriptions and deliveries. */
export class WebhookService {
  constructor(readonly deps: WebhookDeps) {}

  async subscribe(fields: { url: string; events: string[]; description?: string; secret?: string }): Promise<Subscription> {
    const url = parseWebhookUrl(fields.url);
    await checkWebhookTarget(url, allowPrivate(this.deps.config));
    return this.deps.subscriptions.create({ ...fields, url: url.href }, this.deps.config.webhookMaxSubscriptions);
  }

  /**
   * Gives the first delivery of a line its job, once. `queued` becomes `pending` before the
   * job is added, and a `pending` one is added again (BullMQ ignores a job id it holds), so a
   * stop between the two steps loses nothing.
   */
  async enqueue(id: string): Promise<void> {
    const d = await this.deps.deliveries.get(id);
    if (!d || (d.status !== 'queued' && d.status !== 'pending')) return;
    await this.deps.deliveries.setStatus(id, ['queued'], 'pending');
    await addDeliveryJob(this.deps.queue, d);
  }

  /** Fans one outbox event out to the subscriptions that want it, each in its withdrawal's (deposit's) line. */
  async dispatch(event: WithdrawalEvent | DepositEvent, subscriptions: Subscription[]): Promise<number> {
    const line = 'depositId' in event ? { orderKey: event.depositId } : { orderKey: event.withdrawalId, operationID: event.withdrawal.operationID };
    const body = JSON.stringify(event);
    let count = 0;
    for (const sub of subscriptions) {
      if (!wants(sub, event.type)) continue;
      const head = await this.deps.deliveries.dispatch(
        {
          id: deliveryId(sub.id, event.id),
          subscriptionId: sub.id,
          eventId: event.id,
          type: event.type,
          ...line,
          sequence: event.sequence,
          createdAt: event.createdAt,
          body,
        },
        DEDUPE_SECONDS,
      );
      if (head) await this.enqueue(head);
      count++;
    }
    return count;
  }

  /** A `webhook.test` event to one subscription, in a line of its own. */
  async sendTest(subscriptionId: string): Promise<Delivery> {
    const sub = await this.deps.subscriptions.get(subscriptionId);
    const event = { id: randomUUID(), type: 'webhook.test', createdAt: new Date().toISOString(), subscriptionId: sub.id };
    const id = deliveryId(sub.id, event.id);
    const head = await this.deps.deliveries.dispatch(
      {
        id,
        subscriptionId: sub.id,
        eventId: event.id,
        type: event.type,
        orderKey: `test-${event.id}`,
        createdAt: event.createdAt,
        body: JSON.stringify(event),
      },
      DEDUPE_SECONDS,
    );
    if (head) await this.enqueue(head);
    return (await this.deps.deliveries.get(id)) as Delivery;
  }

  async delivery(subscriptionId: string, id: string): Promise<Delivery> {
    const d = await this.deps.deliveries.get(id);
    if (!d || d.subscriptionId !== subscriptionId) throw new NotFoundError(`No delivery ${id} of webhook subscription ${subscriptionId}`);
    return d;
  }

  /** Sends a failed delivery again with a fresh retry schedule; the line behind it follows once it succeeds. */
  async retry(subscriptionId: string, id: string): Promise<Delivery> {
    await this.deps.subscriptions.get(subscriptionId);
    const d = await this.delivery(subscriptionId, id);
    const notFailed = (status: string) => new ConflictError(`Delivery ${id} is ${status}; only a failed delivery can be sent again`, 'ERR_NOT_FAILED');
    if (d.status !== 'failed') throw notFailed(d.status);
    const job = await this.deps.queue.getJob(id);
    // The last attempt marks the delivery failed a moment before BullMQ moves its job.
    if (job && !(await job.isFailed())) throw notFailed('finishing its last attempt');
    if (!(await this.deps.deliveries.setStatus(id, ['failed'], 'pending'))) throw notFailed('no longer failed');
    try {
      if (job) await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      // The failed job was already removed by the retention limit: a new one with the same id.
      else await addDeliveryJob(this.deps.queue, d);
    } catch (e) {
      await this.deps.deliveries.setStatus(id, ['pending'], 'failed');
      throw e;
    }
    this.deps.logger.info({ deliveryId: id, subscriptionId }, 'webhook delivery sent again');
    return (await this.deps.deliveries.get(id)) as Delivery;
  }

  /** Deletes a subscription; its records expire, and jobs still waiting end `cancelled` when they run. */
  async unsubscribe(id: string): Promise<void> {
    await this.deps.subscriptions.delete(id);
    await this.deps.deliveries.forget(id, 86_400);
  }
}
