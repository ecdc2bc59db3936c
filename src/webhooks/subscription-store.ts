import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { NotFoundError } from '../platform/errors.js';
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

  async create(fields: { url: string; events: string[]; description?: string; secret?: string }): Promise<Subscription> {
    const sub: Subscription = {
      id: randomUUID(),
      url: fields.url,
      events: [...new Set(fields.events)],
      ...(fields.description ? { description: fields.description } : {}),
      createdAt: new Date().toISOString(),
      secret: fields.secret ?? `whsec_${randomBytes(32).toString('base64url')}`,
    };
    await this.redis.hset(this.keys.subscriptions, sub.id, JSON.stringify(sub));
    return sub;
  }

  async list(): Promise<Subscription[]> {
    const all = await this.redis.hvals(this.keys.subscriptions);
    return all.map((raw) => JSON.parse(raw) as Subscription).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
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
