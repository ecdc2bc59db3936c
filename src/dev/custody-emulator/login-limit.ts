import { ProblemError } from './problem.js';

/**
 * Failed password logins allowed within `windowSeconds` (counted from the first failure): per
 * user name (known or not, so the limit tells nothing about who exists) and per peer address.
 * 0 turns that limit off.
 */
export interface LoginLimitSettings {
  perUser: number;
  perPeer: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_LIMIT: LoginLimitSettings = { perUser: 5, perPeer: 20, windowSeconds: 300 };

/** Names and addresses remembered at most: a flood of distinct ones cannot grow the heap. */
const MAX_ENTRIES = 10_000;

export interface LoginLimiter {
  /** Throws 429 (Retry-After) while the user name or the peer address has used up its failures. */
  refuseIfBlocked(user: string, peer: string): void;
  failed(user: string, peer: string): void;
  /** A right password clears the user name's failures (not the address's). */
  succeeded(user: string): void;
}

export const tooManyLoginFailures = (details: string, retryAfterSeconds: number) =>
  new ProblemError(429, 'too-many-login-failures', 'Too many requests', details, { 'Retry-After': String(retryAfterSeconds) });

/** The failures are kept in this process (one emulator process owns its state). */
export function createLoginLimiter(settings: LoginLimitSettings, now: () => number): LoginLimiter {
  const windows = new Map<string, { failures: number; resetAt: number }>();
  const limits = (user: string, peer: string) =>
    [
      { key: `user:${user}`, max: settings.perUser, what: 'this user name' },
      { key: `peer:${peer}`, max: settings.perPeer, what: `the address ${peer}` },
    ].filter((l) => l.max > 0);
  return {
    refuseIfBlocked(user, peer) {
      const t = now();
      for (const { key, max, what } of limits(user, peer)) {
        const w = windows.get(key);
        if (!w || w.resetAt <= t || w.failures < max) continue;
        throw tooManyLoginFailures(`Too many failed logins for ${what}; try again later.`, Math.max(1, Math.ceil((w.resetAt - t) / 1000)));
      }
    },
    failed(user, peer) {
      const t = now();
      for (const { key } of limits(user, peer)) {
        const old = windows.get(key);
        const w = old && old.resetAt > t ? old : { failures: 0, resetAt: t + settings.windowSeconds * 1000 };
        w.failures++;
        windows.delete(key);
        if (windows.size >= MAX_ENTRIES) windows.delete(windows.keys().next().value as string);
        windows.set(key, w);
      }
    },
    succeeded(user) {
      windows.delete(`user:${user}`);
    },
  };
}
