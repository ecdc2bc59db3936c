import type { Redis } from 'ioredis';
import { luaScript, NOW_MS_LUA } from '../platform/redis-script.js';

export interface RateLimit {
  /** Tokens added per minute; 0 turns the limit off. */
  perMinute: number;
  /** Bucket size: requests a client may send at once after being idle. */
  burst: number;
}

/**
 * Token bucket in one Lua script: refill by the time since the last take (Redis' own clock,
 * so every API replica shares one clock and one bucket), take one token or say how long
 * until one is there. The key expires once the bucket would be full again, so idle clients
 * cost no memory. Returns 0 when taken, else the milliseconds to wait.
 */
const TAKE = luaScript(
  { keys: ['bucket'], args: ['tokens per minute', 'burst'], returns: '0 when taken, else the ms to wait' },
  `${NOW_MS_LUA}local rate = tonumber(ARGV[1]) / 60000
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return wait
`,
);

/** Takes a token of the bucket at `key`; 0 when taken, else the milliseconds until one is there. */
export async function takeToken(redis: Redis, key: string, limit: RateLimit): Promise<number> {
  return Number(await TAKE.run(redis, [key], [String(limit.perMinute), String(limit.burst)]));
}
