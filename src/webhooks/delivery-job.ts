import type { Job } from 'bullmq';
import { redactUrl } from './redact-url.js';
import { DeliveryAttemptError, sendWebhook } from './send-webhook.js';
import { allowPrivate, type WebhookService } from './webhook-service.js';
import type { DeliveryJob } from './webhook-queue.js';

/** Delivered and cancelled records stay visible through the API this long. */
const RETAIN_FINISHED_SECONDS = 7 * 86_400;

/**
 * Sends one delivery, the first of its line. On a 2xx it is `delivered` and the next delivery
 * of the same withdrawal gets its job; otherwise the job throws and BullMQ retries it on the
 * configured schedule, and after the last attempt the delivery is `failed` and its line waits.
 */
export async function processDelivery(service: WebhookService, job: Job<DeliveryJob>): Promise<void> {
  const { deliveries, subscriptions, config, logger } = service.deps;
  const d = await deliveries.get(job.data.deliveryId);
  if (!d) return;
  const next = async () => {
    const head = await deliveries.advance(d);
    if (head) await service.enqueue(head);
  };
  if (d.status === 'delivered' || d.status === 'cancelled') return next();
  const head = await deliveries.head(d);
  if (head !== d.id) {
    logger.warn({ deliveryId: d.id, head }, 'webhook delivery is not first in its line; left to wait');
    return;
  }
  const sub = await subscriptions.find(d.subscriptionId);
  if (!sub) {
    await deliveries.setStatus(d.id, [], 'cancelled');
    await deliveries.expire(d, RETAIN_FINISHED_SECONDS);
    return next();
  }
  // A failed delivery run again (retry from the API or the dashboard) is pending again.
  await deliveries.setStatus(d.id, ['queued', 'failed'], 'pending');
  const at = new Date().toISOString();
  try {
    const status = await sendWebhook(sub.url, d.body, {
      secret: sub.secret,
      eventId: d.eventId,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: allowPrivate(config),
    });
    await deliveries.recordAttempt(d.id, { at, responseStatus: status });
  } catch (e) {
    const err = e instanceof DeliveryAttemptError ? e : new DeliveryAttemptError((e as Error).message);
    await deliveries.recordAttempt(d.id, { at, responseStatus: err.responseStatus, error: err.message });
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (last) await deliveries.setStatus(d.id, ['pending'], 'failed');
    logger.warn({ deliveryId: d.id, url: redactUrl(sub.url), attempt: job.attemptsMade + 1, last, err: err.message }, 'webhook delivery attempt failed');
    throw err;
  }
  await deliveries.setStatus(d.id, [], 'delivered', { deliveredAt: new Date().toISOString() });
  await deliveries.expire(d, RETAIN_FINISHED_SECONDS);
  await next();
}
