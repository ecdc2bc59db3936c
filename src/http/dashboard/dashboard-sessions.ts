import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { dashboardSessionKey } from '../../platform/redis-keys.js';

export const SESSION_COOKIE = 'byow_dashboard';
/** A session ends after this long without a request… */
export const SESSION_IDLE_SECONDS = 30 * 60;
/** …and after this long in any case. */
export const SESSION_MAX_SECONDS = 8 * 60 * 60;

interface StoredSession {
  /** SHA-256 of the API key that opened it (as API_KEYS holds it): a key replaced under the same name ends its sessions. */
  keySha256: string;
  createdAt: number;
}

/**
 * Dashboard sessions in Redis, so every API process accepts them and logging out ends them
 * everywhere. The cookie holds a random token; Redis holds only its SHA-256, so a copy of
 * Redis grants no session.
 */
export class DashboardSessions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  private key(token: string): string {
    return dashboardSessionKey(this.prefix, createHash('sha256').update(token, 'utf8').digest('hex'));
  }

  async create(keySha256: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const session: StoredSession = { keySha256, createdAt: this.now() };
    await this.redis.set(this.key(token), JSON.stringify(session), 'EX', SESSION_IDLE_SECONDS);
    return token;
  }

  /** The SHA-256 of the API key a live session was opened with; each use extends the idle timeout. */
  async check(token: string): Promise<string | undefined> {
    if (!/^[\w-]{43}$/.test(token)) return undefined;
    const key = this.key(token);
    const raw = await this.redis.get(key);
    if (!raw) return undefined;
    const session = JSON.parse(raw) as Partial<StoredSession>;
    // A session stored before keys were recorded by hash names no key: it ends.
    if (typeof session.keySha256 !== 'string' || typeof session.createdAt !== 'number') return undefined;
    const left = SESSION_MAX_SECONDS - Math.floor((this.now() - session.createdAt) / 1000);
    if (left <= 0) {
      await this.redis.del(key);
      return undefined;
    }
    await this.redis.expire(key, Math.min(SESSION_IDLE_SECONDS, left));
    return session.keySha256;
  }

  async end(token: string): Promise<void> {
    await this.redis.del(this.key(token));
  }
}

export function sessionToken(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Secure whenever the browser reached us over https (directly or, by its own word, through a proxy). */
function isHttps(req: Request): boolean {
  return req.secure || req.headers['x-forwarded-proto'] === 'https';
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), scoped to the dashboard. */
export function setSessionCookie(req: Request, res: Response, token: string, path: string): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: isHttps(req), path, maxAge: SESSION_MAX_SECONDS * 1000 });
}

export function clearSessionCookie(req: Request, res: Response, path: string): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure: isHttps(req), path });
}

/** A request a browser sent from another site (Origin differs from Host): refused on state changes. */
export function isCrossSite(req: Request): boolean {
  const origin = req.headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}
