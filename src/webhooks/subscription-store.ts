import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ConflictError, NotFoundError } from '../platform/errors.js';
import type { WebhookKeys } from '../platform/redis-keys.js';

export interface Subscription {
  id: string;
  url: string;
  /** Event types delivered, or `*` for all. */
  events: string[];
  description?: string;
  createdAt: string;
  /** Signs deliveries; kept in Redis because it must be usable, shown only when created. */
  secret: string;
}

export type PublicSubscription = Omit<Subscription, 'secret'>;

export function withoutSecret({ secret: _secret, ...rest }: Subscription): PublicSubscription {
  return rest;
}

export function wants(sub: Pick<Subscription, 'events'>, type: string): boolean {
  return sub.events.includes('*') || sub.events.includes(type);
}

/** Webhook subscriptions: one hash, few entries, read whole by the dispatcher. */
export class SubscriptionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: WebhookKeys,
  ) {}

  /** Stores a subscription, unless `max` exist already (409 naming the limit); the service passes WEBHOOK_MAX_SUBSCRIPTIONS. */
  async create(fields: { url: string; events: string[]; description?: string; secret?: string }, max = Number.POSITIVE_INFINITY): Promise<Subscription> {
    const sub: Subscription = {
      id: randomUUID(),
      url: fields.url,
      events: [...new Set(fields.events)],
      ...(fields.description ? { description: fields.description } : {}),
      createdAt: new Date().toISOString(),
      secret: fields.secret ?? `whsec_${randomBytes(32).toString('base64url')}`,
    };
    const full = () =>
      new ConflictError(
        `There are ${max} webhook subscriptions, the most WEBHOOK_MAX_SUBSCRIPTIONS (${max}) allows; delete one (DELETE /admin/webhooks/{id}) or raise the limit`,
        'ERR_TOO_MANY_SUBSCRIPTIONS',
      );
    if ((await this.redis.hlen(this.keys.subscriptions)) >= max) throw full();
    // Added, then counted: of two creations racing for the last place, neither stays above the limit.
    const replies = await this.redis.multi().hset(this.keys.subscriptions, sub.id, JSON.stringify(sub)).hlen(this.keys.subscriptions).exec();
    if (Number(replies?.[1]?.[1]) > max) {
      await this.redis.hdel(this.keys.subscriptions, sub.id);
      throw full();
    }
    return sub;
  }

  async list(): Promise<Subscription[]> {
    const all = await this.redis.hvals(this.keys.subscriptions);
    return all.map((raw) => JSON.parse(raw) as Subscription).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** One page in creation order: the subscriptions after `after` (the last of the previous page). */
  async page(limit: number, after?: { ms: number; id: string }): Promise<{ items: Subscription[]; next?: { ms: number; id: string } }> {
    const key = (s: Subscription) => [Date.parse(s.createdAt), s.id] as const;
    const all = (await this.list()).sort((a, b) => {
      const [am, ai] = key(a);
      const [bm, bi] = key(b);
      return am - bm || ai.localeCompare(bi);
    });
    const rest = after
      ? all.filter((s) => {
          const [m, i] = key(s);
          return m > after.ms || (m === after.ms && i > after.id);
        })
      : all;
    const items = rest.slice(0, limit);
    const last = items[items.length - 1];
    return { items, ...(rest.length > limit && last ? { next: { ms: Date.parse(last.createdAt), id: last.id } } : {}) };
  }

  async find(id: string): Promise<Subscription | undefined> {
    const raw = await this.redis.hget(this.keys.subscriptions, id);
    return raw ? (JSON.parse(raw) as Subscription) : undefined;
  }

  async get(id: string): Promise<Subscription> {
    const sub = await this.find(id);
    if (!sub) throw new NotFoundError(`No webhook subscription ${id}`);
    return sub;
  }

  /** Removes the subscription; its waiting deliveries end `cancelled` when their turn comes. */
  async delete(id: string): Promise<void> {
    if ((await this.redis.hdel(this.keys.subscriptions, id)) === 0) throw new NotFoundError(`No webhook subscription ${id}`);
  }
}
