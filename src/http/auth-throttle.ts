import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimitedError } from '../platform/errors.js';
import type { Metrics } from '../platform/metrics.js';
import { rateLimitKey } from '../platform/redis-keys.js';
import { clientAddress } from './client-address.js';
import { takeToken, type RateLimit } from './token-bucket.js';

export type AuthFailureReason = 'missing_key' | 'unknown_key' | 'no_admin_scope';

/** Entries the in-process maps keep at most: a flood of distinct addresses cannot grow the heap. */
const MAX_ENTRIES = 10_000;
/** One warning per client address per this long, with the number of failures since the last. */
const WARN_WINDOW_MS = 60_000;

export interface AuthThrottleDeps {
  redis: Redis;
  prefix: string;
  limit: RateLimit;
  logger: Logger;
  metrics?: Metrics;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/**
 * Throttling of failed authentication (AUTH_FAILURES_PER_MINUTE, AUTH_FAILURES_BURST): each
 * failure takes a token from two Redis token buckets (as `rate-limit.ts`), one of the client's
 * address (`clientAddress`, TRUST_PROXY) and one of the first 8 characters of the key it
 * presented (hashed: they may be part of a real key). Once either is empty, that address or key
 * prefix gets 429 with Retry-After for every attempt, a right key included, until the bucket
 * has a token again: guessing costs time, and a right guess meanwhile tells nothing. The block
 * is kept in process, so a valid key costs no Redis call; each replica learns it at its next
 * failure from that client. Failures are counted in `byow_auth_failures_total{reason}` and
 * logged once per address per minute, not once each.
 */
export class AuthThrottle {
  private readonly blocked = new Map<string, number>();
  private readonly warned = new Map<string, { at: number; failures: number }>();

  constructor(private readonly deps: AuthThrottleDeps) {}

  private buckets(req: IncomingMessage, presented: string | undefined): string[] {
    const out = [`ip:${clientAddress(req)}`];
    if (presented) out.push(`key-prefix:${createHash('sha256').update(presented.slice(0, 8)).digest('hex').slice(0, 16)}`);
    return out;
  }

  /** Throws the 429 when the client's address or the presented key's prefix is blocked. */
  refuseIfBlocked(req: IncomingMessage, presented: string | undefined): void {
    // Nothing blocked (the usual case): a valid key costs no hash and no lookup.
    if (this.deps.limit.perMinute === 0 || this.blocked.size === 0) return;
    const now = Date.now();
    for (const bucket of this.buckets(req, presented)) {
      const until = this.blocked.get(bucket);
      if (until === undefined) continue;
      if (until <= now) {
        this.blocked.delete(bucket);
        continue;
      }
      this.deps.metrics?.authFailures.inc({ reason: 'throttled' });
      throw new RateLimitedError(
        bucket.startsWith('ip:') ? 'failed authentication from this client address' : 'failed authentication with this key',
        Math.ceil((until - now) / 1000),
      );
    }
  }

  /** Counts a failure; the 429 to answer instead of the 401 when it used up the client's allowance. */
  async failed(req: IncomingMessage, reason: AuthFailureReason, presented: string | undefined): Promise<RateLimitedError | undefined> {
    this.deps.metrics?.authFailures.inc({ reason });
    this.warn(req, reason);
    if (this.deps.limit.perMinute === 0 || reason === 'missing_key') return undefined;
    let refusal: RateLimitedError | undefined;
    for (const bucket of this.buckets(req, presented)) {
      const waitMs = await takeToken(this.deps.redis, rateLimitKey(this.deps.prefix, `auth-failures:${bucket}`), this.deps.limit);
      if (waitMs <= 0) continue;
      remember(this.blocked, bucket, Date.now() + waitMs);
      refusal ??= new RateLimitedError(
        bucket.startsWith('ip:') ? 'failed authentication from this client address' : 'failed authentication with this key',
        Math.ceil(waitMs / 1000),
      );
    }
    return refusal;
  }

  private warn(req: IncomingMessage, reason: AuthFailureReason): void {
    if (reason === 'missing_key') return;
    const ip = clientAddress(req);
    const now = Date.now();
    const last = this.warned.get(ip);
    if (last && now - last.at < WARN_WINDOW_MS) {
      last.failures += 1;
      return;
    }
    this.deps.logger.warn(
      { securityEvent: 'auth', ip, reason, ...(last ? { failuresSinceLastWarning: last.failures } : {}) },
      'authentication failed (logged once a minute per client address)',
    );
    remember(this.warned, ip, { at: now, failures: 0 });
  }
}
