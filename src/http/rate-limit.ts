import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { RateLimitedError } from '../platform/errors.js';
import type { AuthContext } from './auth.js';
import { rateLimitKey } from '../platform/redis-keys.js';
import { clientAddress } from './client-address.js';
import { takeToken, type RateLimit } from './token-bucket.js';

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
