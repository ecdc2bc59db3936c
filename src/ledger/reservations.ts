import type { Redis } from 'ioredis';
import { reservationKeys } from '../redis-keys.js';

/**
 * Reservations in Redis that keep concurrent withdrawals (across any number of
 * processes) from using the same nonce, sequence number or coin. All state changes
 * are single Lua scripts, so they are atomic without client-side locks.
 *
 * Sequences (Ethereum nonces, Stellar sequence numbers) are int64 and can exceed what a
 * Lua number holds exactly, so the scripts keep them as 20-digit zero-padded decimal
 * strings, which compare correctly as strings.
 *
 * The gap rule: a number released before broadcast goes to a free list; the next
 * reservation takes the lowest free number that the chain has not yet passed, before
 * handing out a new one. So a withdrawal that fails before broadcast never leaves a
 * gap that blocks the ones after it.
 */

const WIDTH = 20;
const pad = (n: bigint): string => n.toString().padStart(WIDTH, '0');

const RESERVE_SEQUENCE = `
local last = KEYS[1]
local free = KEYS[2]
local owners = KEYS[3]
local chainNext = ARGV[1]
local owner = ARGV[2]
local function inc(s)
  local digits = {}
  for i = 1, #s do digits[i] = tonumber(string.sub(s, i, i)) end
  local i = #s
  while i > 0 do
    if digits[i] == 9 then digits[i] = 0; i = i - 1 else digits[i] = digits[i] + 1; break end
  end
  return table.concat(digits)
end
redis.call('ZREMRANGEBYLEX', free, '-', '(' .. chainNext)
local lowest = redis.call('ZRANGEBYLEX', free, '-', '+', 'LIMIT', 0, 1)
local n
local refilled = 0
if #lowest > 0 then
  n = lowest[1]
  refilled = 1
  redis.call('ZREM', free, n)
else
  local current = redis.call('GET', last)
  if current and current >= chainNext then n = inc(current) else n = chainNext end
  redis.call('SET', last, n)
end
redis.call('HSET', owners, n, owner)
return {n, refilled}
`;

const RELEASE_SEQUENCE = `
local free = KEYS[1]
local owners = KEYS[2]
local n = ARGV[1]
if redis.call('HGET', owners, n) ~= ARGV[2] then return 0 end
redis.call('HDEL', owners, n)
redis.call('ZADD', free, 0, n)
return 1
`;

const CLAIM_ITEMS = `
local owner = ARGV[1]
local ttl = ARGV[2]
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder and holder ~= owner then return 0 end
end
for i, key in ipairs(KEYS) do redis.call('SET', key, owner, 'PX', ttl) end
return 1
`;

const RELEASE_ITEMS = `
local n = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key); n = n + 1 end
end
return n
`;

/** Contention worth counting: a coin claim lost to another owner, a number taken back from the free list. */
export type ReservationEvent = 'utxo_claim_conflict' | 'sequence_refill';

export class Reservations {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'byow:',
    private readonly onEvent: (kind: ReservationEvent, scope: string) => void = () => undefined,
  ) {}

  private seqKeys(scope: string): [string, string, string] {
    // One hash tag per scope keeps a script's keys in one Redis Cluster slot.
    const { last, free, owners } = reservationKeys(this.prefix).sequence(scope);
    return [last, free, owners];
  }

  /**
   * Reserves the next sequence number for `scope` (e.g. `ethtest:0xabc…`), at least
   * `chainNext` (the node's pending nonce, or account sequence + 1).
   */
  async reserveSequence(scope: string, chainNext: bigint, owner: string): Promise<bigint> {
    const [last, free, owners] = this.seqKeys(scope);
    const [n, refilled] = (await this.redis.eval(RESERVE_SEQUENCE, 3, last, free, owners, pad(chainNext), owner)) as [string, number];
    if (refilled === 1) this.onEvent('sequence_refill', scope);
    return BigInt(n);
  }

  /** Gives a number back (operation failed before broadcast). Only its owner can. */
  async releaseSequence(scope: string, n: bigint, owner: string): Promise<boolean> {
    const [, free, owners] = this.seqKeys(scope);
    return (await this.redis.eval(RELEASE_SEQUENCE, 2, free, owners, pad(n), owner)) === 1;
  }

  /** Marks a number as used for good (broadcast): it is never handed out again. */
  async settleSequence(scope: string, n: bigint): Promise<void> {
    const [, , owners] = this.seqKeys(scope);
    await this.redis.hdel(owners, pad(n));
  }

  private itemKey(scope: string, item: string): string {
    return reservationKeys(this.prefix).claim(scope, item);
  }

  /** Which of `items` someone else holds. */
  async claimedBy(scope: string, items: string[]): Promise<(string | null)[]> {
    if (items.length === 0) return [];
    return this.redis.mget(items.map((i) => this.itemKey(scope, i)));
  }

  /** Claims all `items` (UTXOs) for `owner` for `ttlMs`, or none if any is held by another owner. */
  async claim(scope: string, items: string[], owner: string, ttlMs: number): Promise<boolean> {
    if (items.length === 0) return true;
    const keys = items.map((i) => this.itemKey(scope, i));
    const claimed = (await this.redis.eval(CLAIM_ITEMS, keys.length, ...keys, owner, String(ttlMs))) === 1;
    if (!claimed) this.onEvent('utxo_claim_conflict', scope);
    return claimed;
  }

  /** Releases what `owner` holds among `items`. */
  async release(scope: string, items: string[], owner: string): Promise<number> {
    if (items.length === 0) return 0;
    const keys = items.map((i) => this.itemKey(scope, i));
    return (await this.redis.eval(RELEASE_ITEMS, keys.length, ...keys, owner)) as number;
  }
}
