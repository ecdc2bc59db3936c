import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookKeys } from '../../src/platform/redis-keys.js';
import { DeliveryStore, type NewDelivery } from '../../src/webhooks/delivery-store.js';
import { deliveryId } from '../../src/webhooks/webhook-queue.js';
import { testRedis } from '../helpers/redis.js';
import { until } from '../pipeline/support.js';

/** How long these tests keep finished deliveries (production: 7 days). */
const RETAIN_SECONDS = 1;
const DAY_MS = 86_400_000;

/**
 * `webhook:{sub}:deliveries` has no TTL and Redis runs noeviction: an entry left behind by its
 * expired record would stay for good, one per event per subscription.
 */
describe('the delivery index of a subscription holds what can still be listed', () => {
  const { redis, prefix } = testRedis();
  const keys = webhookKeys(prefix);
  const store = new DeliveryStore(redis, keys);
  afterAll(() => redis.disconnect());

  /** Records an event's delivery to `sub`, in the line of `withdrawalId`, created `ageMs` ago. */
  const record = async (sub: string, fields: { withdrawalId?: string; sequence?: number; ageMs?: number } = {}): Promise<NewDelivery> => {
    const eventId = randomUUID();
    const d: NewDelivery = {
      id: deliveryId(sub, eventId),
      subscriptionId: sub,
      eventId,
      type: 'withdrawal.created',
      orderKey: fields.withdrawalId ?? randomUUID(),
      sequence: fields.sequence ?? 1,
      createdAt: new Date(Date.now() - (fields.ageMs ?? 0)).toISOString(),
      body: '{}',
    };
    await store.dispatch(d, 60);
    return d;
  };
  const deliver = async (d: NewDelivery, retainSeconds = RETAIN_SECONDS) => {
    await store.setStatus(d.id, [], 'delivered', { deliveredAt: new Date().toISOString() });
    await store.expire(d, retainSeconds);
  };
  const indexed = async (sub: string) => (await redis.zrange(keys.deliveries(sub), 0, -1)).sort();
  const expired = (ds: NewDelivery[]) =>
    until('the delivered records expire', async () => (await redis.exists(...ds.map((d) => keys.delivery(d.id)))) === 0, 5_000);

  it('a delivered record leaves the index once it has expired, without anyone listing deliveries', async () => {
    const sub = randomUUID();
    const delivered = [];
    for (let i = 0; i < 5; i++) delivered.push(await record(sub));
    for (const d of delivered) await deliver(d);
    expect(await indexed(sub)).toEqual(delivered.map((d) => d.id).sort());
    await expired(delivered);
    // The next delivery to finish takes the expired ones out.
    const later = await record(sub);
    await deliver(later, 60);
    expect(await indexed(sub)).toEqual([later.id]);
  });

  it("failed, pending and queued deliveries stay listed past the delivered ones' retention, however old", async () => {
    const sub = randomUUID();
    const old = 8 * DAY_MS;
    const failed = await record(sub, { withdrawalId: 'w1', sequence: 1, ageMs: old });
    const queued = await record(sub, { withdrawalId: 'w1', sequence: 2, ageMs: old - 1_000 });
    const pending = await record(sub, { withdrawalId: 'w2', ageMs: old - 2_000 });
    await store.setStatus(failed.id, [], 'failed');
    await store.setStatus(pending.id, [], 'pending');
    const delivered = [await record(sub, { ageMs: old + 1_000 }), await record(sub, { ageMs: old - 500 }), await record(sub)];
    for (const d of delivered) await deliver(d);
    await expired(delivered);
    const later = await record(sub);
    await deliver(later, 60);

    expect(await indexed(sub)).toEqual([failed.id, queued.id, pending.id, later.id].sort());
    // Page by page, newest first, one at a time.
    const listed: string[] = [];
    let before: { ms: number; id: string } | undefined;
    for (;;) {
      const page = await store.list(sub, { limit: 1, ...(before ? { before } : {}) });
      if (page.items.length === 0) break;
      listed.push(...page.items.map((d) => `${d.id}:${d.status}`));
      before = page.next;
    }
    expect(listed).toEqual([`${later.id}:delivered`, `${pending.id}:pending`, `${queued.id}:queued`, `${failed.id}:failed`]);
    expect((await store.list(sub, { limit: 10, status: 'failed' })).items.map((d) => d.id)).toEqual([failed.id]);
  });
});
