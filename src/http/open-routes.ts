import type { Request } from 'express';
import type { Config } from '../config/load-config.js';
import type { Scope } from '../security/api-keys.js';
import type { AppContext } from './app-context.js';
import { rateLimiter } from './rate-limit.js';
import { TimeSlicer } from '../vaults/derivation/time-sliced.js';

/** Whether the spec's open routes answer without an API key: OPEN_ROUTES_ANONYMOUS, else only in the sandbox. */
export function openRoutesAnonymous(config: Pick<Config, 'openRoutesAnonymous' | 'sandboxProfile'>): boolean {
  return config.openRoutesAnonymous ?? config.sandboxProfile;
}

export interface HeavyRouteAccess {
  /** `read` unless anonymous access is on; only for the routes the spec shows open. */
  openScope: Scope | undefined;
  /** The per-client rate limit, run after authentication so a bad key is a 401 and costs no token. */
  guard: (req: Request) => Promise<void>;
  /** Statuses the limit and the key add to a route's document. */
  errors: number[];
  /** Shared by the routes built from one context: concurrent requests take turns in one slice per loop turn. */
  slicer: TimeSlicer;
}

/** Access rules of the routes whose work grows with the request (key derivation, balances). */
export function heavyRouteAccess(ctx: AppContext, slicer = new TimeSlicer()): HeavyRouteAccess {
  const anonymous = openRoutesAnonymous(ctx.config);
  return {
    openScope: anonymous ? undefined : 'read',
    guard: rateLimiter(ctx.redis, ctx.prefix, { perMinute: ctx.config.openRoutesRatePerMinute, burst: ctx.config.openRoutesBurst }),
    errors: anonymous ? [429] : [401, 403, 429],
    slicer,
  };
}
