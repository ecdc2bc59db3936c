import { luaScript } from '../platform/redis-script.js';

/**
 * The scanner's steps as Lua: each moves the ledger's cursor and the deposits it changes, with
 * their events in the outbox, in one atomic call, as a compare-and-set on the cursor. A step
 * whose cursor moved meanwhile (another worker got there first) writes nothing, so however
 * often a block is read, its events are written once; a crash before the call loses nothing,
 * a crash after it repeats nothing.
 */

// The deposit as the API shows it, spliced from the stored JSON and the hash's fields: the
// record's `from` may be an empty array, which cjson would turn into an object.
export const VIEW_LUA = `
local function view(dk, confirmations)
  local f = redis.call('HMGET', dk, 'data', 'state', 'height', 'hash', 'blockTime', 'detectedAt', 'confirmedAt', 'revertedAt', 'updatedAt', 'deepReorg')
  local s = string.sub(f[1], 1, -2) .. ',"state":"' .. f[2] .. '","blockHeight":' .. f[3] .. ',"blockHash":' .. cjson.encode(f[4]) .. ',"blockTime":"' .. f[5] .. '"'
  if confirmations then s = s .. ',"confirmations":' .. confirmations end
  if f[10] then s = s .. ',"reorganisedAfterConfirmation":true' end
  s = s .. ',"detectedAt":"' .. f[6] .. '"'
  if f[7] then s = s .. ',"confirmedAt":"' .. f[7] .. '"' end
  if f[8] then s = s .. ',"revertedAt":"' .. f[8] .. '"' end
  return s .. ',"updatedAt":"' .. f[9] .. '"}'
end
`;

/** The cursor still where the caller read it: `height` and `hash` both. */
const CURSOR_IS_LUA = `
local function cursorIs(key, height, hash)
  local c = redis.call('HMGET', key, 'height', 'hash')
  return c[1] == height and c[2] == hash
end
`;

export const INIT_CURSOR = luaScript(
  { keys: ['cursor', 'blocks'], args: ['height', 'hash', 'block time ms'], returns: '1 when set, 0 when the ledger had a cursor already' },
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'height', ARGV[1], 'hash', ARGV[2], 'time', ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`,
);

/**
 * What a deposit goes through in a step, shared by the live scanner's step (APPLY_BLOCK) and a
 * back-fill's (backfill-scripts.ts), so a deposit either of them finds is one deposit with one
 * set of events. `K`: the keys and time of the step (`window` may be nil: a back-filled block
 * below the live reorg window); `B`: the block (`height` as a string, `hash`, `timeIso`).
 */
export const DEPOSIT_STEP_LUA = `
local function emit(K, dk, id, event, kind, confirmations)
  local seq = redis.call('HINCRBY', dk, 'seq', 1)
  redis.call('XADD', K.outbox, '*', 'id', event, 'type', 'deposit.' .. kind, 'at', K.now, 'depositId', id, 'sequence', seq, 'deposit', view(dk, confirmations))
end
-- A transfer to a vault in block B. New: DETECTED with its event. Its block had left the chain:
-- the same deposit in this block, no event. REVERTED before: DETECTED again. Returns 1 when DETECTED.
local function seen(K, B, dk, vk, id, event, data)
  local f = redis.call('HMGET', dk, 'state', 'orphaned')
  local placed = function()
    redis.call('HSET', dk, 'height', B.height, 'hash', B.hash, 'blockTime', B.timeIso, 'updatedAt', K.now)
    if K.window then redis.call('ZADD', K.window, B.height, id) end
  end
  if not f[1] then
    redis.call('HSET', dk, 'data', data, 'state', 'DETECTED', 'detectedAt', K.now)
    placed()
    redis.call('ZADD', K.unconfirmed, B.height, id)
    redis.call('ZADD', K.byTime, K.nowMs, id)
    redis.call('ZADD', vk, K.nowMs, id)
    emit(K, dk, id, event, 'detected', 1)
    return 1
  elseif f[1] == 'REVERTED' then
    redis.call('HSET', dk, 'state', 'DETECTED')
    redis.call('HDEL', dk, 'orphaned')
    placed()
    redis.call('ZADD', K.unconfirmed, B.height, id)
    emit(K, dk, id, event, 'detected', 1)
    return 1
  elseif f[2] then
    redis.call('HDEL', dk, 'orphaned')
    redis.call('ZREM', K.orphans, id)
    placed()
    if f[1] == 'DETECTED' then redis.call('ZADD', K.unconfirmed, B.height, id) end
  end
  return 0
end
-- DETECTED, in the chain, at most limit high: CONFIRMED with its event, its confirmations counted to block top. Returns 1 when CONFIRMED.
local function confirm(K, dk, id, event, limit, top)
  local f = redis.call('HMGET', dk, 'state', 'orphaned', 'height')
  if f[1] == 'DETECTED' and not f[2] and tonumber(f[3]) <= limit then
    redis.call('HSET', dk, 'state', 'CONFIRMED', 'confirmedAt', K.now, 'updatedAt', K.now)
    redis.call('ZREM', K.unconfirmed, id)
    emit(K, dk, id, event, 'confirmed', top - tonumber(f[3]) + 1)
    return 1
  end
  return 0
end
`;

/**
 * Applies the next block. Operations after the fixed arguments, in groups:
 * - `seen dk vk id event data`: a transfer to a vault in this block (dk, vk: indexes into KEYS
 *   of the deposit and of its vault's list), DEPOSIT_STEP_LUA's `seen`.
 * - `confirm dk id event`: DETECTED at most `confirm limit` high: CONFIRMED with its event.
 * - `revert dk id event`: its block left the chain and the chain grew back to its height
 *   without it: REVERTED with its event, or, if it was CONFIRMED already, flagged.
 */
export const APPLY_BLOCK = luaScript(
  {
    keys: ['cursor', 'blocks', 'window', 'unconfirmed', 'orphans', 'by-time', 'outbox', '...deposit and vault-list keys'],
    args: [
      'expected height',
      'expected hash',
      'height',
      'hash',
      'block time ms',
      'block time ISO',
      'now ISO',
      'now ms',
      'confirm limit',
      'window floor',
      '...operations',
    ],
    returns: '{1, detected, confirmed, reverted, flagged} or {0} when the cursor moved',
  },
  `${VIEW_LUA}${CURSOR_IS_LUA}${DEPOSIT_STEP_LUA}
if not cursorIs(KEYS[1], ARGV[1], ARGV[2]) then return {0} end
-- The one command that can fail on a key of another type runs before any write.
redis.call('XLEN', KEYS[7])
local height = tonumber(ARGV[3])
local K = {window = KEYS[3], unconfirmed = KEYS[4], orphans = KEYS[5], byTime = KEYS[6], outbox = KEYS[7], now = ARGV[7], nowMs = ARGV[8]}
local B = {height = ARGV[3], hash = ARGV[4], timeIso = ARGV[6]}
local counts = {0, 0, 0, 0}
local i = 11
while i <= #ARGV do
  local op = ARGV[i]
  local dk = KEYS[tonumber(ARGV[i + 1])]
  if op == 'seen' then
    counts[1] = counts[1] + seen(K, B, dk, KEYS[tonumber(ARGV[i + 2])], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5])
    i = i + 6
  elseif op == 'confirm' then
    counts[2] = counts[2] + confirm(K, dk, ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[9]), height)
    i = i + 4
  elseif op == 'revert' then
    local id, event = ARGV[i + 2], ARGV[i + 3]
    i = i + 4
    local f = redis.call('HMGET', dk, 'state', 'orphaned')
    if f[2] then
      redis.call('HDEL', dk, 'orphaned')
      redis.call('ZREM', KEYS[5], id)
      if f[1] == 'CONFIRMED' then
        redis.call('HSET', dk, 'deepReorg', '1', 'updatedAt', K.now)
        counts[4] = counts[4] + 1
      else
        redis.call('HSET', dk, 'state', 'REVERTED', 'revertedAt', K.now, 'updatedAt', K.now)
        redis.call('ZREM', KEYS[4], id)
        emit(K, dk, id, event, 'reverted', nil)
        counts[3] = counts[3] + 1
      end
    end
  else
    return redis.error_reply('unknown operation ' .. tostring(op))
  end
end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('HDEL', KEYS[2], ARGV[10])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[10])
redis.call('HSET', KEYS[1], 'height', ARGV[3], 'hash', ARGV[4], 'time', ARGV[5])
return {1, counts[1], counts[2], counts[3], counts[4]}
`,
);

/**
 * Takes the cursor's block off: the node's chain no longer has it. Its deposits (KEYS after the
 * fifth, their ids in ARGV after the fourth) wait in `orphans` until the new chain is as high
 * as the old one was (`reorg top`): held by it, they are the same deposits in another block
 * (APPLY_BLOCK's `seen`), else REVERTED (its `revert`). The cursor steps to the block below.
 */
export const UNWIND_BLOCK = luaScript(
  {
    keys: ['cursor', 'blocks', 'window', 'unconfirmed', 'orphans', '...deposit keys'],
    args: ['height', 'hash', 'reorg top', 'now ISO', '...deposit ids'],
    returns:
      '1 done, 0 when the cursor moved or the block gained a deposit since the caller read them (a back-fill), -1 when the block below is older than the window (a reorg deeper than it)',
  },
  `${CURSOR_IS_LUA}
if not cursorIs(KEYS[1], ARGV[1], ARGV[2]) then return 0 end
-- A back-fill may have added a deposit of this block since the caller read the list: read it again.
if redis.call('ZCOUNT', KEYS[3], ARGV[1], ARGV[1]) ~= #KEYS - 5 then return 0 end
local height = tonumber(ARGV[1])
local below = redis.call('HGET', KEYS[2], tostring(height - 1))
if not below then return -1 end
for j = 6, #KEYS do
  local dk, id = KEYS[j], ARGV[j - 1]
  local f = redis.call('HMGET', dk, 'hash', 'state')
  if f[1] == ARGV[2] and f[2] ~= 'REVERTED' then
    redis.call('HSET', dk, 'orphaned', '1', 'updatedAt', ARGV[4])
    redis.call('ZADD', KEYS[5], ARGV[3], id)
    redis.call('ZREM', KEYS[4], id)
  end
  redis.call('ZREM', KEYS[3], id)
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'height', tostring(height - 1), 'hash', below)
return 1
`,
);

/** Takes or renews the scanner's lock of a ledger: free, or held with this token already. */
export const TAKE_LOCK = luaScript(
  { keys: ['lock'], args: ['token', 'ttl ms'], returns: '1 held by this token now, 0 held by another' },
  `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`,
);

export const RELEASE_LOCK = luaScript(
  { keys: ['lock'], args: ['token'], returns: '1 released, 0 not held by this token' },
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`,
);
