import type { Redis } from 'ioredis';
import { luaScript, NOW_MS_LUA } from '../platform/redis-script.js';

/**
 * Orphaned numbers: a reserved nonce or sequence number whose withdrawal is gone.
 *
 * A craft reserves its number before the withdrawal is stored, so a creation that
 * fails in between (Redis error on the store, and on the release it then tries; the API process
 * killed) leaves a number whose owner no withdrawal will ever release. So does a withdrawal
 * that ended FAILED before it was sent while its release failed. Unreleased, such a number
 * blocks the account for good: every later transaction waits for it, and its spend counts
 * against the balance. So the owners hash also records, per number `n`, since when it was last
 * known to be held (field `n:since`, ms on Redis' clock), and a reservation first looks at the
 * owner of the account's next number (`chainNext`: the one every later transaction waits for)
 * and, when its spend check fails, at every owner. One held longer than the grace period is
 * settled before anything is reserved: its withdrawal is stored and not FAILED (held again from
 * now: looked at again after another grace period, one read), or it is missing or FAILED and
 * the number goes back to the free list, which this very reservation then refills. Everything
 * is in Redis, so this survives any process dying; no sweep is needed, since a freed number
 * only helps once a reservation refills it. A number found without `n:since` (reserved by a
 * version that did not record it, perhaps by a process still creating its withdrawal) starts
 * its grace period when first found.
 *
 * The grace period (ORPHAN_GRACE_MS) keeps a withdrawal being created right now from losing
 * its number: from its reservation to its store takes one build and one Redis write (commands
 * time out after 5 s), and a whole creation request is bounded by its node and custody calls
 * to about a minute (see idempotency.ts); ten minutes is far past either. Should a store still
 * land after its number was taken back, both withdrawals use one number and only one of them
 * can be taken by the ledger: one fails, none is paid twice.
 */

/** How long a number may be held without its withdrawal seen live before it counts as orphaned. */
export const ORPHAN_GRACE_MS = 10 * 60_000;

/** The grace argument that skips the check: the second run, after the overdue owners were settled. */
export const NO_CHECK = -1;

/** At most this many overdue owners are settled per reservation; the next reservation goes on. */
const MAX_OVERDUE = 100;

/** A reservation script's answer when it reserved nothing because owners are overdue: `['check', [n, owner, n, owner…]]`. */
export type Overdue = ['check', string[]];

/**
 * The Lua a reservation script includes to find owners past the grace period (locals: owners,
 * grace; sets now; numbers are `width` digits). Lists are flat: n, owner, n, owner…
 */
export const overdueLua = (width: number): string => `${NOW_MS_LUA}
local function overdue(m, since)
  if grace < 0 then return false end
  -- Absent (an older version reserved it) or not a time: the grace period starts now.
  local held = since and tonumber(since)
  if not held then
    redis.call('HSET', owners, m .. ':since', string.format('%.0f', now))
    return false
  end
  return held <= now - grace
end
local function overdueAt(list, m)
  local holder = redis.call('HGET', owners, m)
  if holder and overdue(m, redis.call('HGET', owners, m .. ':since')) then list[#list + 1] = m; list[#list + 1] = holder end
end
local function overdueAll(list)
  local all = redis.call('HGETALL', owners)
  local field = {}
  for i = 1, #all, 2 do field[all[i]] = all[i + 1] end
  for m, holder in pairs(field) do
    if #list >= ${2 * MAX_OVERDUE} then return end
    if #m == ${width} and overdue(m, field[m .. ':since'] or false) then list[#list + 1] = m; list[#list + 1] = holder end
  end
end
`;

// Its withdrawal was seen live: held from now (unless the number changed hands since).
const HELD_AGAIN = luaScript(
  { keys: ['owners'], args: ['n', 'owner'], returns: '1, or 0 when another owner holds n' },
  `${NOW_MS_LUA}
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1] .. ':since', string.format('%.0f', now))
return 1
`,
);

/**
 * Owners that held a number past the grace period: one whose withdrawal is stored and not
 * FAILED holds it again from now; one whose withdrawal is missing or FAILED (a withdrawal that
 * failed before it was sent gives its number back, so this one's release was lost) is an
 * orphan and `release` gives its number back with its spend. An owner is an operation id
 * (`WithdrawalIntent.reference`), read at `operation(owner)`.
 */
export async function settleOverdue(
  redis: Redis,
  operation: (id: string) => string,
  owners: string,
  late: string[],
  release: (n: string, owner: string) => Promise<unknown>,
): Promise<void> {
  const pairs = Array.from({ length: late.length / 2 }, (_, i) => [late[2 * i] as string, late[2 * i + 1] as string] as const);
  await Promise.all(
    pairs.map(async ([n, owner]) => {
      const raw = await redis.get(operation(owner));
      const live = raw !== null && (JSON.parse(raw) as { status?: string }).status !== 'FAILED';
      if (live) await HELD_AGAIN.run(redis, [owners], [n, owner]);
      else await release(n, owner);
    }),
  );
}
