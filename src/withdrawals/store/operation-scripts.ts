/**
 * The Lua scripts of the operation store (operation-store.ts): each write of a record, its
 * indexes and its outbox event in one atomic step. Keys are `operationKeys` (redis-keys.ts).
 */
import { luaScript } from '../../platform/redis-script.js';
import { appendEventLua } from './outbox.js';

/** The event's arguments (eventArgs in outbox.ts), at ARGV[3] to ARGV[7] in each script. */
const EVENT = ['event type', 'event id', 'event at', 'event withdrawal id', 'event withdrawal'] as const;

// The record as read is passed as its SHA-1, not whole: a withdrawal's record is sent to Redis
// once per write, not twice.
export const COMPARE_AND_SET = luaScript(
  {
    keys: ['op', 'seq', 'outbox', 'open-ops'],
    args: ['SHA-1 of the record as read', 'the new record', ...EVENT, "'1' when the operation leaves the open index", 'id'],
    returns: '1 written, 0 when the record is not the one read',
  },
  `
if redis.sha1hex(redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
if ARGV[3] ~= '' then ${appendEventLua(2, 3, 3)} end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[8] == '1' then redis.call('ZREM', KEYS[4], ARGV[9]) end
return 1
`,
);

// The event's withdrawal id (ARGV[6]) is the operation's id.
// 1: stored, also when this very record already is (a command sent again after its answer was lost);
// 0: another record has the id; 2: the claim is no longer the request's (a retry took it over);
// 3: the claim is gone (a Redis failover or eviction). Nothing is written but on 1.
export const CREATE = luaScript(
  {
    keys: ['op', 'seq', 'outbox', 'vault-ops', 'open-ops', 'ops-by-time', "...digest-ops, then the Idempotency-Key's record when one guards the request"],
    args: ['the record', 'created ms', ...EVENT, "the claim as the request holds it ('' without one)", 'the claim as it reads once the withdrawal exists'],
    returns: '1 stored, 0 another record has the id, 2 the claim was taken over, 3 the claim is gone',
  },
  `
local stored = redis.call('GET', KEYS[1])
if stored then
  if stored == ARGV[1] then return 1 end
  return 0
end
local last = #KEYS
if ARGV[8] ~= '' then
  last = last - 1
  local claim = redis.call('GET', KEYS[#KEYS])
  if not claim then return 3 end
  if claim ~= ARGV[8] then return 2 end
  redis.call('SET', KEYS[#KEYS], ARGV[9], 'KEEPTTL')
end
${appendEventLua(2, 3, 3)}
redis.call('SET', KEYS[1], ARGV[1])
for i = 7, last do redis.call('SADD', KEYS[i], ARGV[6]) end
for i = 4, 6 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[6]) end
return 1
`,
);

export const LINK_CUSTODY_ID = luaScript(
  {
    keys: ['op', 'seq', 'outbox', 'opid'],
    args: ['SHA-1 of the record as the caller holds it', 'the new record', ...EVENT, 'id'],
    returns: '1 written, 0 when the record is not the one the caller holds',
  },
  `
redis.call('SET', KEYS[4], ARGV[8])
if redis.sha1hex(redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
${appendEventLua(2, 3, 3)}
redis.call('SET', KEYS[1], ARGV[2])
return 1
`,
);

// The records of the operations in every set (a callback's lookup in one round trip); no unpack,
// so any number of digests.
export const FOR_DIGESTS = luaScript(
  { keys: ['...digest-ops of each digest (one at least)'], args: ['the prefix of op keys'], returns: 'the records' },
  `
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local all = true
  for i = 2, #KEYS do
    if redis.call('SISMEMBER', KEYS[i], id) == 0 then all = false break end
  end
  if all then
    local raw = redis.call('GET', ARGV[1] .. id)
    if raw then out[#out + 1] = raw end
  end
end
return out
`,
);

export const ADD_SIGNATURES = luaScript(
  { keys: ['signatures'], args: ['...index, signature JSON'], returns: '{newly set, fields after}' },
  `
local added = 0
for i = 1, #ARGV, 2 do added = added + redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
return { added, redis.call('HLEN', KEYS[1]) }
`,
);
