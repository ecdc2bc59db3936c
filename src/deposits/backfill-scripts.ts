import { luaScript } from '../platform/redis-script.js';
import { DEPOSIT_STEP_LUA, VIEW_LUA } from './deposit-scripts.js';

/**
 * A back-fill's steps as Lua. Its record (`deposit-backfill:{vault}`) holds its range, its own
 * cursor (`height`, the last block read) and its state; every step checks that the record is
 * still this back-fill's (a newer request for the vault replaces it) at the height the caller
 * read, like the live scanner's compare-and-set on its cursor.
 */

/** Starts a back-fill of a vault, replacing the one before (whose job stops at its next step). */
export const START_BACKFILL = luaScript(
  {
    keys: ['backfill'],
    args: ['id', 'ledger', 'vault', 'from height', 'to height', 'cursor height (from height - 1)', 'now ISO'],
    returns: '1',
  },
  `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'ledgerId', ARGV[2], 'vaultId', ARGV[3], 'fromHeight', ARGV[4], 'toHeight', ARGV[5],
  'height', ARGV[6], 'state', 'RUNNING', 'found', '0', 'detected', '0', 'createdAt', ARGV[7], 'updatedAt', ARGV[7])
return 1
`,
);

/** Notes why a running back-fill waits (empty: it goes on), or ends it as STOPPED with the reason. */
export const NOTE_BACKFILL = luaScript(
  { keys: ['backfill'], args: ['id', 'waiting or stop reason', 'stop (1) or wait (0)', 'now ISO'], returns: '1 noted, 0 not this running back-fill' },
  `
local f = redis.call('HMGET', KEYS[1], 'id', 'state')
if f[1] ~= ARGV[1] or f[2] ~= 'RUNNING' then return 0 end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'state', 'STOPPED', 'error', ARGV[2], 'finishedAt', ARGV[4], 'updatedAt', ARGV[4])
  redis.call('HDEL', KEYS[1], 'waiting')
elseif ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], 'waiting')
else
  redis.call('HSET', KEYS[1], 'waiting', ARGV[2], 'updatedAt', ARGV[4])
end
return 1
`,
);

/**
 * Applies one earlier block to the deposits, for one vault's addresses. Deposits go through
 * the live step's own `seen` and `confirm` (DEPOSIT_STEP_LUA), under the same keys: one found
 * by the live scanner as well is the same deposit, its events written once.
 *
 * The block must be one the live scan has passed, and, where the live scan still keeps the
 * block of that height (its reorg window), that very block: otherwise the step writes nothing
 * and the back-fill waits for the live scan to settle the reorganisation. A deposit in such a
 * block joins the live window, so a reorganisation the live scan undoes takes it off too.
 * Deposits `confirmations` deep as the live scan counts are CONFIRMED in the same step; the
 * others are confirmed by the live scan as it goes on.
 *
 * Deposits after the fixed arguments, in groups `dk vk id detected-event confirmed-event data`.
 */
export const BACKFILL_BLOCK = luaScript(
  {
    keys: ['backfill', 'cursor', 'blocks', 'window', 'unconfirmed', 'orphans', 'by-time', 'outbox', '...deposit and vault-list keys'],
    args: ['id', 'expected height', 'height', 'hash', 'block time ISO', 'now ISO', 'now ms', 'confirmations', '...deposits'],
    returns:
      '{1, detected, confirmed, done (1/0)}; {0} not this running back-fill at that height; {-1, live height} the live scan is below the block; {-2} the live scan holds another block there',
  },
  `${VIEW_LUA}${DEPOSIT_STEP_LUA}
local b = redis.call('HMGET', KEYS[1], 'id', 'state', 'height', 'toHeight')
if b[1] ~= ARGV[1] or b[2] ~= 'RUNNING' or b[3] ~= ARGV[2] then return {0} end
local live = tonumber(redis.call('HGET', KEYS[2], 'height'))
local height = tonumber(ARGV[3])
if not live or height > live then return {-1, live or -1} end
local saved = redis.call('HGET', KEYS[3], ARGV[3])
if saved and saved ~= ARGV[4] then return {-2} end
-- The one command that can fail on a key of another type runs before any write.
redis.call('XLEN', KEYS[8])
local K = {unconfirmed = KEYS[5], orphans = KEYS[6], byTime = KEYS[7], outbox = KEYS[8], now = ARGV[6], nowMs = ARGV[7]}
if saved then K.window = KEYS[4] end
local B = {height = ARGV[3], hash = ARGV[4], timeIso = ARGV[5]}
local limit = live - math.max(1, tonumber(ARGV[8])) + 1
local detected, confirmed = 0, 0
local i = 9
while i <= #ARGV do
  local dk, vk, id = KEYS[tonumber(ARGV[i])], KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2]
  detected = detected + seen(K, B, dk, vk, id, ARGV[i + 3], ARGV[i + 5])
  confirmed = confirmed + confirm(K, dk, id, ARGV[i + 4], limit, live)
  i = i + 6
end
local done = height >= tonumber(b[4])
redis.call('HSET', KEYS[1], 'height', ARGV[3], 'hash', ARGV[4], 'updatedAt', ARGV[6])
redis.call('HDEL', KEYS[1], 'waiting')
if i > 9 then redis.call('HINCRBY', KEYS[1], 'found', (i - 9) / 6) end
if detected > 0 then redis.call('HINCRBY', KEYS[1], 'detected', detected) end
if done then redis.call('HSET', KEYS[1], 'state', 'DONE', 'finishedAt', ARGV[6]) end
return {1, detected, confirmed, done and 1 or 0}
`,
);
