import type { Redis } from 'ioredis';
import { luaScript } from '../platform/redis-script.js';
import { operationKeys, reservationKeys } from '../platform/redis-keys.js';
import { NO_CHECK, ORPHAN_GRACE_MS, overdueLua, settleOverdue, type Overdue } from './orphaned-numbers.js';

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
 *
 * Orphans, numbers whose withdrawal is gone, are taken back by the next reservation: see
 * orphaned-numbers.ts.
 */

const WIDTH = 20;
const pad = (n: bigint): string => n.toString().padStart(WIDTH, '0');
const AMOUNT_WIDTH = 80;
const padAmount = (n: bigint): string => {
  if (n < 0n) throw new RangeError('a spend or balance is never negative');
  return n.toString().padStart(AMOUNT_WIDTH, '0');
};

// Picks the number `n` for `owner` (locals: last, free, owners, chainNext, owner, now; sets n, refilled).
const ALLOCATE = `
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
redis.call('HSET', owners, n, owner, n .. ':since', string.format('%.0f', now))
`;

const RESERVE_SEQUENCE = luaScript(
  {
    keys: ['last', 'free', 'owners'],
    args: ['chainNext', 'owner', 'grace ms'],
    returns: "{'ok', n, refilled}, or {'check', {n, owner, …}} when owners are overdue",
  },
  `
local last = KEYS[1]
local free = KEYS[2]
local owners = KEYS[3]
local chainNext = ARGV[1]
local owner = ARGV[2]
local grace = tonumber(ARGV[3])
${overdueLua(WIDTH)}
local late = {}
overdueAt(late, chainNext)
if #late > 0 then return {'check', late} end
${ALLOCATE}
return {'ok', n, refilled}
`,
);

/**
 * Amounts in the spend scripts are 80-digit zero-padded decimal strings (uint256 has 78
 * digits; Lua numbers are doubles), added and subtracted in 8-digit limbs, compared as strings.
 */
const AMOUNT_LUA = `
local ZERO = string.rep('0', ${AMOUNT_WIDTH})
local function add(a, b)
  local out, carry = {}, 0
  for i = ${AMOUNT_WIDTH - 7}, 1, -8 do
    local v = tonumber(string.sub(a, i, i + 7)) + tonumber(string.sub(b, i, i + 7)) + carry
    if v >= 100000000 then carry = 1; v = v - 100000000 else carry = 0 end
    out[(i + 7) / 8] = string.format('%08d', v)
  end
  return table.concat(out)
end
local function sub(a, b)
  if a <= b then return ZERO end
  local out, borrow = {}, 0
  for i = ${AMOUNT_WIDTH - 7}, 1, -8 do
    local v = tonumber(string.sub(a, i, i + 7)) - tonumber(string.sub(b, i, i + 7)) - borrow
    if v < 0 then borrow = 1; v = v + 100000000 else borrow = 0 end
    out[(i + 7) / 8] = string.format('%08d', v)
  end
  return table.concat(out)
end
-- Forgets the spend entries of number n (members 'n|asset'), taking them off the totals.
local function forget(spent, idx, total, members)
  for _, m in ipairs(members) do
    local amount = redis.call('HGET', spent, m)
    if amount then
      local asset = string.sub(m, ${WIDTH} + 2)
      redis.call('HSET', total, asset, sub(redis.call('HGET', total, asset) or ZERO, amount))
      redis.call('HDEL', spent, m)
    end
  end
  for i = 1, #members, 1000 do redis.call('ZREM', idx, unpack(members, i, math.min(i + 999, #members))) end
end
`;

const RESERVE_WITHIN = luaScript(
  {
    keys: ['last', 'free', 'owners', 'spent', 'spent-idx', 'spent-total', 'mined'],
    args: ['chainNext', 'owner', 'minedBelow', 'grace ms', 'asset count', '...asset, balance, spend per asset'],
    returns: "{'ok', n, refilled}, {'stale', mined seen}, {'short', asset, pending}, or {'check', {n, owner, …}} when owners are overdue",
  },
  `
local last, free, owners, spent, idx, total, minedKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local chainNext = ARGV[1]
local owner = ARGV[2]
local mined = ARGV[3]
local grace = tonumber(ARGV[4])
${AMOUNT_LUA}
${overdueLua(WIDTH)}
local seen = redis.call('GET', minedKey)
if seen and mined < seen then return {'stale', seen} end
if mined ~= seen then
  redis.call('SET', minedKey, mined)
  forget(spent, idx, total, redis.call('ZRANGEBYLEX', idx, '-', '(' .. mined))
end
local assets = tonumber(ARGV[5])
local shortAsset, shortPending
for i = 0, assets - 1 do
  local asset, balance, spend = ARGV[6 + 3 * i], ARGV[7 + 3 * i], ARGV[8 + 3 * i]
  local pending = redis.call('HGET', total, asset) or ZERO
  if not shortAsset and add(pending, spend) > balance then shortAsset, shortPending = asset, pending end
end
-- An orphan's spend may be what refuses this one: then every overdue owner is settled first.
local late = {}
if shortAsset then overdueAll(late) else overdueAt(late, chainNext) end
if #late > 0 then return {'check', late} end
if shortAsset then return {'short', shortAsset, shortPending} end
${ALLOCATE}
forget(spent, idx, total, redis.call('ZRANGEBYLEX', idx, '[' .. n .. '|', '[' .. n .. '|\\255'))
for i = 0, assets - 1 do
  local asset, spend = ARGV[6 + 3 * i], ARGV[8 + 3 * i]
  local m = n .. '|' .. asset
  redis.call('HSET', spent, m, spend)
  redis.call('ZADD', idx, 0, m)
  redis.call('HSET', total, asset, add(redis.call('HGET', total, asset) or ZERO, spend))
end
return {'ok', n, refilled}
`,
);

const RAISE_SPEND = luaScript(
  {
    keys: ['spent', 'spent-idx', 'spent-total', 'mined'],
    args: ['n', '...asset, spend per asset'],
    returns: '1, or 0 when n is mined already',
  },
  `
${AMOUNT_LUA}
local mined = redis.call('GET', KEYS[4])
if mined and ARGV[1] < mined then return 0 end
for i = 2, #ARGV, 2 do
  local m = ARGV[1] .. '|' .. ARGV[i]
  local old = redis.call('HGET', KEYS[1], m) or ZERO
  if ARGV[i + 1] > old then
    redis.call('HSET', KEYS[1], m, ARGV[i + 1])
    redis.call('ZADD', KEYS[2], 0, m)
    redis.call('HSET', KEYS[3], ARGV[i], add(sub(redis.call('HGET', KEYS[3], ARGV[i]) or ZERO, old), ARGV[i + 1]))
  end
end
return 1
`,
);

const RELEASE_SEQUENCE = luaScript(
  {
    keys: ['free', 'owners', 'spent', 'spent-idx', 'spent-total'],
    args: ['n', 'owner'],
    returns: '1, or 0 when owner does not hold n',
  },
  `
local free = KEYS[1]
local owners = KEYS[2]
local n = ARGV[1]
if redis.call('HGET', owners, n) ~= ARGV[2] then return 0 end
${AMOUNT_LUA}
redis.call('HDEL', owners, n, n .. ':since')
redis.call('ZADD', free, 0, n)
forget(KEYS[3], KEYS[4], KEYS[5], redis.call('ZRANGEBYLEX', KEYS[4], '[' .. n .. '|', '[' .. n .. '|\\255'))
return 1
`,
);

const CLAIM_ITEMS = luaScript(
  { keys: ['...items'], args: ['owner', 'ttl ms'], returns: '1 when all are claimed, 0 (none) when another owner holds one' },
  `
local owner = ARGV[1]
local ttl = ARGV[2]
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder and holder ~= owner then return 0 end
end
for i, key in ipairs(KEYS) do redis.call('SET', key, owner, 'PX', ttl) end
return 1
`,
);

const RELEASE_ITEMS = luaScript(
  { keys: ['...items'], args: ['owner'], returns: 'how many of the items owner held (now released)' },
  `
local n = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key); n = n + 1 end
end
return n
`,
);

/**
 * How long a reservation that expires by itself must last at least (`AdaptorDeps.minReservationMs`):
 * as long as a withdrawal may wait for its quorum (SIGN_TIMEOUT_SECONDS) plus an hour for its
 * broadcast; release() frees it sooner when the withdrawal ends.
 */
export const minReservationMs = (signTimeoutSeconds: number): number => (signTimeoutSeconds + 3600) * 1000;

/** Contention worth counting: a coin claim lost to another owner, a number taken back from the free list. */
export type ReservationEvent = 'utxo_claim_conflict' | 'sequence_refill';

/**
 * What a sequence number's transaction may spend from its account at most, per asset (base
 * units; the native asset's includes the maximum fee), checked against the account as one
 * block shows it.
 */
export interface SpendCheck {
  /** Balances at the snapshot's block, per asset. */
  balances: Record<string, bigint>;
  /** The account's mined sequence count at that block: the spends of lower numbers are in the balances already. */
  minedBelow: bigint;
  spend: Record<string, bigint>;
}

export type SpendReservation =
  | { ok: true; n: bigint }
  /** Balance minus what the account's reserved numbers not yet mined may spend is below this spend. */
  | { ok: false; reason: 'short'; asset: string; pending: bigint }
  /** Another reservation already saw a later block (`minedBelow` is behind): read the account again. */
  | { ok: false; reason: 'stale'; minedBelow: bigint };

export class Reservations {
  constructor(
    private readonly redis: Redis,
    /**
     * The service's prefix (servicePrefix of REDIS_PREFIX): also the operation store's, where an
     * owner's withdrawal is looked up. Always given: a default would mix the numbers and claims of a
     * deployment that left it out with those of the deployment using that prefix.
     */
    private readonly prefix: string,
    private readonly onEvent: (kind: ReservationEvent, scope: string) => void = () => undefined,
    private readonly orphanGraceMs = ORPHAN_GRACE_MS,
  ) {}

  private seqKeys(scope: string): [string, string, string] {
    // One hash tag per scope keeps a script's keys in one Redis Cluster slot.
    const { last, free, owners } = reservationKeys(this.prefix).sequence(scope);
    return [last, free, owners];
  }

  /** Spends of reserved numbers not yet mined: `spent` ('n|asset' → amount), its lex index, the totals per asset, the highest mined count seen. */
  private spendKeys(scope: string): [string, string, string, string] {
    const { spent, spentIndex, spentTotal, mined } = reservationKeys(this.prefix).spend(scope);
    return [spent, spentIndex, spentTotal, mined];
  }

  /**
   * Reserves the next sequence number for `scope` (e.g. `ethtest:0xabc…`), at least
   * `chainNext` (the node's pending nonce, or account sequence + 1).
   */
  async reserveSequence(scope: string, chainNext: bigint, owner: string): Promise<bigint> {
    const keys = this.seqKeys(scope);
    const r = await this.afterOverdue(
      scope,
      (grace) => RESERVE_SEQUENCE.run(this.redis, keys, [pad(chainNext), owner, grace]) as Promise<['ok', string, number] | Overdue>,
    );
    if (r[2] === 1) this.onEvent('sequence_refill', scope);
    return BigInt(r[1]);
  }

  /**
   * Reserves the next sequence number as `reserveSequence` does, only if the account can pay
   * `check.spend` on top of everything its reserved numbers not yet mined may spend; records
   * the spend with the number, in the same atomic step. So concurrent withdrawals from one
   * account, in any number of processes, never promise more than its balance, however old
   * the balance read is: a spend stays counted until a block shows its number mined (then
   * it is in the balance), or its number is released. A read older than one another
   * reservation already used is refused as `stale`, since spends it has not seen mined may
   * have been dropped already.
   */
  async reserveSequenceWithin(scope: string, chainNext: bigint, owner: string, check: SpendCheck): Promise<SpendReservation> {
    const assets = Object.keys(check.spend);
    const args = assets.flatMap((a) => [a, padAmount(check.balances[a] ?? 0n), padAmount(check.spend[a] as bigint)]);
    const keys = [...this.seqKeys(scope), ...this.spendKeys(scope)] as const;
    type Reply = ['stale', string] | ['short', string, string] | ['ok', string, number] | Overdue;
    const r = await this.afterOverdue(
      scope,
      (grace) => RESERVE_WITHIN.run(this.redis, keys, [pad(chainNext), owner, pad(check.minedBelow), grace, String(assets.length), ...args]) as Promise<Reply>,
    );
    if (r[0] === 'stale') return { ok: false, reason: 'stale', minedBelow: BigInt(r[1]) };
    if (r[0] === 'short') return { ok: false, reason: 'short', asset: r[1], pending: BigInt(r[2]) };
    if (r[2] === 1) this.onEvent('sequence_refill', scope);
    return { ok: true, n: BigInt(r[1]) };
  }

  /**
   * Runs a reservation script with the orphan check; when it names overdue owners instead of
   * reserving, settles them and runs it once more without the check.
   */
  private async afterOverdue<R extends unknown[]>(scope: string, run: (grace: number) => Promise<R | Overdue>): Promise<R> {
    const first = await run(this.orphanGraceMs);
    if (first[0] !== 'check') return first as R;
    await this.settleOverdue(scope, (first as Overdue)[1]);
    return (await run(NO_CHECK)) as R;
  }

  /** Owners past the grace period: live ones hold their number again, orphans give it back (orphaned-numbers.ts). */
  private async settleOverdue(scope: string, late: string[]): Promise<void> {
    const [, , owners] = this.seqKeys(scope);
    await settleOverdue(this.redis, operationKeys(this.prefix).operation, owners, late, (n, owner) => this.releaseSequence(scope, BigInt(n), owner));
  }

  /**
   * Raises what number `n` may spend to at least `spend` per asset (a replacement of its
   * transaction with a higher fee: either may land). No balance check: the replacement
   * spends the number's own reservation. Nothing changes once a read showed `n` mined.
   */
  async raiseSpend(scope: string, n: bigint, spend: Record<string, bigint>): Promise<void> {
    const keys = this.spendKeys(scope);
    const args = Object.entries(spend).flatMap(([asset, amount]) => [asset, padAmount(amount)]);
    await RAISE_SPEND.run(this.redis, keys, [pad(n), ...args]);
  }

  /** Gives a number back (operation failed before broadcast), with the spend recorded for it. Only its owner can. */
  async releaseSequence(scope: string, n: bigint, owner: string): Promise<boolean> {
    const [, free, owners] = this.seqKeys(scope);
    const [spent, idx, total] = this.spendKeys(scope);
    return (await RELEASE_SEQUENCE.run(this.redis, [free, owners, spent, idx, total], [pad(n), owner])) === 1;
  }

  /** Marks a number as used for good (broadcast): it is never handed out again. */
  async settleSequence(scope: string, n: bigint): Promise<void> {
    await this.settleSequences(scope, [n]);
  }

  /** settleSequence for several numbers of one scope, in one command. */
  async settleSequences(scope: string, ns: bigint[]): Promise<void> {
    if (ns.length === 0) return;
    const [, , owners] = this.seqKeys(scope);
    await this.redis.hdel(owners, ...ns.flatMap((n) => [pad(n), `${pad(n)}:since`]));
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
    const claimed = (await CLAIM_ITEMS.run(this.redis, keys, [owner, String(ttlMs)])) === 1;
    if (!claimed) this.onEvent('utxo_claim_conflict', scope);
    return claimed;
  }

  /** Releases what `owner` holds among `items`. */
  async release(scope: string, items: string[], owner: string): Promise<number> {
    if (items.length === 0) return 0;
    const keys = items.map((i) => this.itemKey(scope, i));
    return (await RELEASE_ITEMS.run(this.redis, keys, [owner])) as number;
  }
}
