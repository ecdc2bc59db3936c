/**
 * Every Redis key of the webhooks, under the service's prefix (a `{hash-tagged}` prefix keeps
 * each script's keys in one Redis Cluster slot).
 *
 * - `webhook-subscriptions`                 hash: subscription id → subscription JSON (with its secret)
 * - `webhook:{sub}:deliveries`              sorted set of a subscription's deliveries by creation time
 * - `webhook-delivery:{delivery}`           hash: one delivery (event body, status, attempts, last answer)
 * - `webhook:{sub}:pending:{withdrawal}`    list of deliveries not yet made, in event order; only the head has a job
 * - `webhook:{sub}:dispatched:{withdrawal}` sequence of the last event dispatched (a re-read outbox entry is skipped)
 */
export interface WebhookKeys {
  subscriptions: string;
  deliveries(subscriptionId: string): string;
  delivery(deliveryId: string): string;
  pending(subscriptionId: string, orderKey: string): string;
  dispatched(subscriptionId: string, orderKey: string): string;
}

export function webhookKeys(prefix: string): WebhookKeys {
  return {
    subscriptions: `${prefix}webhook-subscriptions`,
    deliveries: (sub) => `${prefix}webhook:${sub}:deliveries`,
    delivery: (id) => `${prefix}webhook-delivery:${id}`,
    pending: (sub, key) => `${prefix}webhook:${sub}:pending:${key}`,
    dispatched: (sub, key) => `${prefix}webhook:${sub}:dispatched:${key}`,
  };
}
