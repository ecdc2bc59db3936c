import type { Request } from 'express';
import { luaScript, NOW_MS_LUA } from '../platform/redis-script.js';
import type { Redis } from 'ioredis';
import { RateLimitedError } from '../platform/errors.js';
import type { AuthContext } from './auth.js';
import { rateLimitKey } from '../platform/redis-keys.js';
import { clientAddress } from './client-address.js';

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
const TAKE = luaScript({ keys: ['bucket'], args: ['tokens per minute', 'burst'], returns: '0 when taken, else the ms to wait' }, `${NOW_MS_LUA}local rate = tonumber(ARGV[1]) / 60000
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
`);

/** Takes a token of the bucket at `key`; 0 when taken, else the milliseconds until one is there. */
export async function takeToken(redis: Redis, key: string, limit: RateLimit): Promise<number> {
  return Number(await TAKE.run(redis, [key], [String(limit.perMinute), String(limit.burst)]));
}

/** The client a request is counted against: its API key when it sent a valid one, else its address (`clientAddress`, TRUST_PROXY). */
export function clientOf(req: Request): string {
  const auth = req.res?.locals.auth as AuthContext | undefined;
  return auth ? `key:${auth.keyName}` : `ip:${clientAddress(req)}`;
}

/**
 * Per-client limit of the heavy open routes (address derivation, balances). Kept in Redis
 * rather than in process: several API replicas behind a balancer then enforce one limit,
 * not one each, and a flood of distinct peer addresses cannot grow the API's heap.
 * One script call per request, next to work that costs far more.
 */
export function rateLimiter(redis: Redis, keyPrefix: string, limit: RateLimit): (req: Request) => Promise<void> {
  return async (req) => {
    if (limit.perMinute === 0) return;
    const client = clientOf(req);
    const waitMs = await takeToken(redis, rateLimitKey(keyPrefix, client), limit);
    if (waitMs > 0) throw new RateLimitedError(client.startsWith('key:') ? 'this API key' : 'this client address', Math.ceil(waitMs / 1000));
  };
}
