import type { Redis } from 'ioredis';
import { luaScript, NOW_MS_LUA } from '../platform/redis-script.js';
import type { WebhookKeys } from '../platform/redis-keys.js';

/**
 * - `queued`    behind an earlier event of the same withdrawal for this subscription: no job yet
 * - `pending`   its job is waiting, running or backing off after failed attempts
 * - `delivered` the receiver answered 2xx
 * - `failed`    every attempt failed; later events of the withdrawal wait until it is retried
 * - `cancelled` the subscription was deleted before it was delivered
 */
export const DELIVERY_STATUSES = ['queued', 'pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Delivery {
  /** `{subscriptionId}-{eventId}`: also the id of its BullMQ job. */
  id: string;
  subscriptionId: string;
  eventId: string;
  type: string;
  /** Deliveries with one order key go out one after the other (the withdrawal's id; a test event has its own). */
  orderKey: string;
  sequence?: number;
  operationID?: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt?: string;
  lastResponseStatus?: number;
  lastError?: string;
  deliveredAt?: string;
  createdAt: string;
  /** The exact bytes sent (and signed). */
  body: string;
}

export type NewDelivery = Pick<Delivery, 'id' | 'subscriptionId' | 'eventId' | 'type' | 'orderKey' | 'sequence' | 'operationID' | 'createdAt' | 'body'>;

// A record made again after an earlier one expired is not finished: its index entry must not
// leave with the earlier one's expiry.
const DISPATCH = luaScript(
  {
    keys: ['dispatched', 'pending', 'delivery', 'deliveries', 'expiring'],
    args: ['sequence (0 = unordered)', 'id', 'created ms', 'ttl s', '...field, value'],
    returns: "the id at the head of the order key's line",
  },
  `
local seq = tonumber(ARGV[1])
if seq > 0 then
  if seq <= tonumber(redis.call('GET', KEYS[1]) or '0') then return redis.call('LINDEX', KEYS[2], 0) end
  redis.call('SET', KEYS[1], seq, 'EX', ARGV[4])
end
if redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('HSET', KEYS[3], unpack(ARGV, 5))
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
  redis.call('ZREM', KEYS[5], ARGV[2])
  redis.call('RPUSH', KEYS[2], ARGV[2])
end
return redis.call('LINDEX', KEYS[2], 0)
`,
);

/** At most this many index entries leave per finished delivery: each call stays short, and a backlog still drains. */
const PRUNE_BATCH = 100;

// Gives a finished delivery its
// retention and takes the index entries of expired records out. The index is by creation time,
// where a failed or queued delivery may be older than any retention, so what leaves is read
// from `expiring` (finished deliveries only, by expiry): O(log n + removed), never a scan.
// Redis's clock both sets the expiry and says it has passed. An entry already out of the index
// (a deleted subscription's, forgotten) is not tracked: nothing would ever prune it.
const EXPIRE = luaScript(
  { keys: ['delivery', 'deliveries', 'expiring'], args: ['id', 'seconds'], returns: 'nothing' },
  `${NOW_MS_LUA}local at = now + tonumber(ARGV[2]) * 1000
redis.call('PEXPIREAT', KEYS[1], at)
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then redis.call('ZADD', KEYS[3], at, ARGV[1]) end
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, ${PRUNE_BATCH})
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
`,
);

// Removes a finished head; answers the next one.
const ADVANCE = luaScript(
  { keys: ['pending'], args: ['id'], returns: 'the id now at the head, or nil' },
  `
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then redis.call('LPOP', KEYS[1]) end
return redis.call('LINDEX', KEYS[1], 0)
`,
);

// The allowed current statuses are the arguments up to '|' (none = any).
const SET_STATUS = luaScript(
  {
    keys: ['delivery'],
    args: ['new status', "...allowed current status, …, '|', field, value, …"],
    returns: '1, or 0 when the record is missing or its status is not allowed',
  },
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local i = 2
local allowed, any = false, true
while ARGV[i] ~= '|' do
  any = false
  if redis.call('HGET', KEYS[1], 'status') == ARGV[i] then allowed = true end
  i = i + 1
end
if not any and not allowed then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], unpack(ARGV, i + 1))
return 1
`,
);

function flatten(fields: Record<string, string | number | undefined>): string[] {
  return Object.entries(fields).flatMap(([k, v]) => (v === undefined ? [] : [k, String(v)]));
}

function fromHash(h: Record<string, string>): Delivery | undefined {
  if (!h.id) return undefined;
  const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
  return {
    id: h.id,
    subscriptionId: h.subscriptionId as string,
    eventId: h.eventId as string,
    type: h.type as string,
    orderKey: h.orderKey as string,
    ...(num(h.sequence) !== undefined ? { sequence: num(h.sequence) } : {}),
    ...(h.operationID ? { operationID: h.operationID } : {}),
    status: h.status as DeliveryStatus,
    attempts: Number(h.attempts ?? 0),
    ...(h.lastAttemptAt ? { lastAttemptAt: h.lastAttemptAt } : {}),
    ...(num(h.lastResponseStatus) !== undefined ? { lastResponseStatus: num(h.lastResponseStatus) } : {}),
    ...(h.lastError ? { lastError: h.lastError } : {}),
    ...(h.deliveredAt ? { deliveredAt: h.deliveredAt } : {}),
    createdAt: h.createdAt as string,
    body: h.body as string,
  };
}

/** Delivery records and the per-withdrawal order of each subscription's deliveries. */
export class DeliveryStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: WebhookKeys,
  ) {}

  /**
   * Records a delivery at the end of its order key's line, once: an event dispatched again (the
   * dispatcher stopped before removing it from the outbox) is recognised by its sequence.
   * Returns the delivery now first in line, which is the one that may be sent.
   */
  async dispatch(d: NewDelivery, dedupeTtlSeconds: number): Promise<string | null> {
    const keys = [
      this.keys.dispatched(d.subscriptionId, d.orderKey),
      this.keys.pending(d.subscriptionId, d.orderKey),
      this.keys.delivery(d.id),
      this.keys.deliveries(d.subscriptionId),
      this.keys.expiring(d.subscriptionId),
    ] as const;
    const fields = flatten({ ...d, status: 'queued', attempts: 0 });
    return (await DISPATCH.run(this.redis, keys, [String(d.sequence ?? 0), d.id, String(Date.parse(d.createdAt)), String(dedupeTtlSeconds), ...fields])) as
      string | null;
  }

  async get(id: string): Promise<Delivery | undefined> {
    return fromHash(await this.redis.hgetall(this.keys.delivery(id)));
  }

  /** Moves to `to` when the current status is one of `from` (empty: any); false when it was not. */
  async setStatus(id: string, from: DeliveryStatus[], to: DeliveryStatus, fields: Record<string, string | number | undefined> = {}): Promise<boolean> {
    const r = (await SET_STATUS.run(this.redis, [this.keys.delivery(id)], [to, ...from, '|', ...flatten(fields)])) as number;
    return r === 1;
  }

  async recordAttempt(id: string, outcome: { at: string; responseStatus?: number; error?: string }): Promise<void> {
    const key = this.keys.delivery(id);
    const tx = this.redis.multi().hincrby(key, 'attempts', 1).hset(key, 'lastAttemptAt', outcome.at);
    tx.hset(key, 'lastResponseStatus', outcome.responseStatus === undefined ? '' : String(outcome.responseStatus));
    if (outcome.error) tx.hset(key, 'lastError', outcome.error);
    else tx.hdel(key, 'lastError');
    await tx.exec();
  }

  /**
   * Finished deliveries are kept this long for the API, then vanish from it: the record
   * expires, and its index entry leaves when a later delivery of the subscription finishes.
   * Deliveries not finished (queued, pending, failed) keep their entries.
   */
  async expire(d: Pick<Delivery, 'id' | 'subscriptionId'>, seconds: number): Promise<void> {
    await EXPIRE.run(this.redis, [this.keys.delivery(d.id), this.keys.deliveries(d.subscriptionId), this.keys.expiring(d.subscriptionId)], [d.id, seconds]);
  }

  /** Takes a finished delivery out of its line; returns the next one, if any. */
  async advance(d: Pick<Delivery, 'id' | 'subscriptionId' | 'orderKey'>): Promise<string | null> {
    return (await ADVANCE.run(this.redis, [this.keys.pending(d.subscriptionId, d.orderKey)], [d.id])) as string | null;
  }

  /** Lets every record of a deleted subscription expire (its lines and their dedupe markers too). */
  async forget(subscriptionId: string, seconds: number): Promise<void> {
    const zkey = this.keys.deliveries(subscriptionId);
    const ids = await this.redis.zrange(zkey, 0, -1);
    const orderKeys = ids.length ? await Promise.all(ids.map((id) => this.redis.hget(this.keys.delivery(id), 'orderKey'))) : [];
    const tx = this.redis.pipeline().expire(zkey, seconds).expire(this.keys.expiring(subscriptionId), seconds);
    for (const id of ids) tx.expire(this.keys.delivery(id), seconds);
    for (const key of new Set(orderKeys.filter((k): k is string => k !== null))) {
      tx.expire(this.keys.pending(subscriptionId, key), seconds).expire(this.keys.dispatched(subscriptionId, key), seconds);
    }
    await tx.exec();
  }

  async head(d: Pick<Delivery, 'subscriptionId' | 'orderKey'>): Promise<string | null> {
    return this.redis.lindex(this.keys.pending(d.subscriptionId, d.orderKey), 0);
  }

  /**
   * A subscription's deliveries, newest first. `before` (the last item of a previous page)
   * continues it; entries of one millisecond come in reverse id order, so ties are skipped up
   * to the cursor's id. A status filter reads at most 20 pages of the index per call.
   */
  async list(
    subscriptionId: string,
    opts: { limit: number; before?: { ms: number; id: string }; status?: DeliveryStatus },
  ): Promise<{ items: Delivery[]; next?: { ms: number; id: string } }> {
    const zkey = this.keys.deliveries(subscriptionId);
    const items: Delivery[] = [];
    const max = opts.before ? String(opts.before.ms) : '+inf';
    let last: { ms: number; id: string } | undefined;
    let offset = 0;
    for (let round = 0; round < 20; round++) {
      const flat = await this.redis.zrevrangebyscore(zkey, max, '-inf', 'WITHSCORES', 'LIMIT', offset, opts.limit);
      if (flat.length === 0) return { items };
      offset += flat.length / 2;
      const entries = [];
      for (let i = 0; i < flat.length; i += 2) entries.push({ id: flat[i] as string, ms: Number(flat[i + 1]) });
      const fresh = entries.filter((e) => !(opts.before && e.ms === opts.before.ms && e.id >= opts.before.id));
      const pipe = this.redis.pipeline();
      for (const e of fresh) pipe.hgetall(this.keys.delivery(e.id));
      const hashes = (await pipe.exec()) ?? [];
      const gone: string[] = [];
      for (const [i, e] of fresh.entries()) {
        const d = fromHash((hashes[i]?.[1] ?? {}) as Record<string, string>);
        last = e;
        if (!d) gone.push(e.id);
        else if (!opts.status || d.status === opts.status) items.push(d);
        if (items.length === opts.limit) return { items, next: e };
      }
      if (gone.length) {
        await this.redis.zrem(zkey, ...gone);
        offset -= gone.length;
      }
    }
    return { items, ...(last ? { next: last } : {}) };
  }
}
