import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError, UnavailableError } from '../platform/errors.js';
import { CustodyRequestError } from './errors.js';
import type { HttpAnswer, HttpFetch } from '../platform/http-client.js';

/**
 * How the connector proves itself to the custody service: a long-lived API key, or a user
 * and password exchanged for 20-minute access tokens (spec "Authentication").
 */
export interface CustodyAuth {
  /** The `Authorization` value for the next call (obtaining or renewing a token first if needed). */
  header(): Promise<string>;
  /**
   * The service answered 401 to a call made with `used`: get fresh credentials. False when
   * renewing cannot help (a static API key), so the 401 stands.
   */
  renew(used: string): Promise<boolean>;
}

export function apiKeyAuth(apiKey: string): CustodyAuth {
  const value = `Bearer ${apiKey}`;
  return { header: async () => value, renew: async () => false };
}

export interface TokenSessionOptions {
  /** The `{mng}` base; tokens come from `{mng}/auth/token` (older deployments: `/auth/tokens`). */
  baseUrl: string;
  user: string;
  password: string;
  clientId: string;
  fetch: HttpFetch;
  logger: Logger;
  timeoutMs?: number;
  now?: () => number;
}

const tokenResultSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
});

/** Spec "Limits": access tokens live 20 minutes; used when an answer leaves `expires_in` out. */
const DEFAULT_LIFETIME_S = 20 * 60;

/** After an early renewal failed for a passing reason, the next try waits this long (the token still works meanwhile). */
const RENEWAL_RETRY_MS = 5_000;

/**
 * After the custody service refuses the password, or a token just obtained for a 401 meets a
 * 401 again, no login is tried for this long; calls meanwhile fail at once with the same
 * refusal. A login per call (every reconciliation pass, every `/status`, every withdrawal) with
 * a wrong password can lock the user at the custody service or its identity provider.
 */
export const REFUSED_LOGIN_PAUSE_MS = 60_000;

interface Token {
  header: string;
  expiresAt: number;
  /** Renewal starts here: a quarter of the lifetime, at most a minute, before expiry; later after a renewal that failed for a passing reason. */
  renewAt: number;
  refreshToken?: string;
}

/**
 * Access tokens for a user and password, renewed before they expire: with the refresh token
 * while the service accepts it, else by logging in again. Concurrent callers share one
 * renewal. The password never leaves this object except in the login request itself.
 */
export class TokenSession implements CustodyAuth {
  private token: Token | undefined;
  private pending: Promise<Token> | undefined;
  /** `/auth/token` (1.0.2106) until the service answers 404, then the deprecated `/auth/tokens`. */
  private path = '/auth/token';
  private readonly now: () => number;
  private readonly log: Logger;
  /** The password login's last refusal, repeated to callers until `until`. */
  private refused: { error: unknown; until: number } | undefined;
  /** The token a 401 made `renew` obtain, and when: a 401 to that token soon after says renewing cannot help. */
  private renewal: { header: string; at: number } | undefined;

  constructor(private readonly opts: TokenSessionOptions) {
    this.now = opts.now ?? Date.now;
    this.log = opts.logger.child({ component: 'custody-auth' });
  }

  async header(): Promise<string> {
    const t = this.token;
    if (t && this.now() < t.renewAt) return t.header;
    try {
      return (await this.obtain(t)).header;
    } catch (e) {
      if (t && this.keepsDuringOutage(t, e)) return t.header;
      throw e;
    }
  }

  async renew(used: string): Promise<boolean> {
    const now = this.now();
    // Another caller may have renewed already since `used` went out.
    if (this.token && this.token.header !== used && now < this.token.renewAt) return true;
    // A token just obtained for a 401 was refused too (a revoked role, not an expired token).
    if (this.renewal?.header === used && now - this.renewal.at < REFUSED_LOGIN_PAUSE_MS) return false;
    this.token = undefined;
    const t = await this.obtain(undefined);
    this.renewal = { header: t.header, at: now };
    return true;
  }

  /**
   * Renewal starts up to a minute early; a 429, 5xx or network failure then must not fail calls
   * the current token can still make. True when `t` stays in use: the failure is transient and
   * `t` has not expired. The next renewal try is put off a little so calls do not hammer the
   * token endpoint.
   */
  private keepsDuringOutage(t: Token, e: unknown): boolean {
    const now = this.now();
    if (!(e instanceof AppError && e.retryable) || now >= t.expiresAt) return false;
    // Concurrent callers shared the failed renewal: the first one puts the next try off and says so.
    if (this.token === t) {
      const renewAt = Math.min(t.expiresAt, now + RENEWAL_RETRY_MS);
      this.token = { ...t, renewAt };
      this.log.warn(
        { reason: e.details, expiresInS: Math.round((t.expiresAt - now) / 1000), nextTryInS: Math.round((renewAt - now) / 1000) },
        'custody token renewal failed; using the current token while it is valid',
      );
    }
    return true;
  }

  private obtain(previous: Token | undefined): Promise<Token> {
    this.pending ??= this.fetchToken(previous).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchToken(previous: Token | undefined): Promise<Token> {
    if (previous?.refreshToken && this.now() < previous.expiresAt) {
      const refreshed = await this.request({ grant_type: 'password', refreshtoken: previous.refreshToken }, false).catch((e: unknown) => {
        if (e instanceof UnavailableError) throw e;
        this.log.info({ reason: (e as Error).message }, 'refresh token refused; logging in again');
        return undefined;
      });
      if (refreshed) return (this.token = refreshed);
    }
    if (this.refused && this.now() < this.refused.until) throw this.refused.error;
    let t: Token;
    try {
      t = await this.request({ grant_type: 'password', username: this.opts.user, password: this.opts.password }, true);
    } catch (e) {
      if (e instanceof CustodyRequestError && e.errCode === 'ERR_CUSTODY_AUTH') {
        this.refused = { error: e, until: this.now() + REFUSED_LOGIN_PAUSE_MS };
        this.log.error(
          { reason: e.message, nextLoginInS: REFUSED_LOGIN_PAUSE_MS / 1000 },
          'custody refused the login of CUSTODY_USER; no login is tried again before the pause ends',
        );
      }
      throw e;
    }
    this.refused = undefined;
    this.log.info({ expiresInS: Math.round((t.expiresAt - this.now()) / 1000) }, 'custody access token obtained');
    return (this.token = t);
  }

  private async request(fields: Record<string, string>, withPassword: boolean): Promise<Token> {
    const body = new URLSearchParams({ ...fields, client_id: this.opts.clientId, scope: '/mng' }).toString();
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json, application/problem+json' };
    if (withPassword) headers.authorization = `Basic ${Buffer.from(`${this.opts.user}:${this.opts.password}`).toString('base64')}`;
    const base = this.opts.baseUrl.replace(/\/+$/, '');
    for (;;) {
      const operation = `POST ${this.path}`;
      let res: HttpAnswer;
      let text: string;
      try {
        res = await this.opts.fetch(`${base}${this.path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000) });
        text = await res.text();
      } catch (e) {
        const err = e as Error & { cause?: { code?: string } };
        throw new UnavailableError(`custody ${operation} failed: ${err.cause?.code ?? err.message}`, e, 'ERR_CUSTODY_UNAVAILABLE');
      }
      if (res.status === 404 && this.path === '/auth/token') {
        this.path = '/auth/tokens';
        continue;
      }
      // 408 and 425 say "not now", like 429: a refusal of the credentials is any other 4xx.
      if (res.status === 429 || res.status === 408 || res.status === 425 || res.status >= 500) {
        throw new UnavailableError(`custody ${operation} answered ${res.status}`, undefined, 'ERR_CUSTODY_UNAVAILABLE');
      }
      if (res.status >= 400) throw refusal(operation, res.status, text);
      let parsed;
      try {
        parsed = tokenResultSchema.safeParse(JSON.parse(text));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        throw new CustodyRequestError(
          { operation, upstreamStatus: res.status, upstreamDetails: 'the token answer has no access_token' },
          'ERR_CUSTODY_BAD_RESPONSE',
        );
      }
      const lifetimeMs = (parsed.data.expires_in ?? DEFAULT_LIFETIME_S) * 1000;
      const now = this.now();
      return {
        header: `Bearer ${parsed.data.access_token}`,
        expiresAt: now + lifetimeMs,
        renewAt: now + lifetimeMs - Math.min(60_000, lifetimeMs / 4),
        refreshToken: parsed.data.refresh_token,
      };
    }
  }
}

function refusal(operation: string, status: number, text: string): CustodyRequestError {
  let type: string | undefined;
  let details: string | undefined;
  try {
    const body = JSON.parse(text) as { type?: unknown; details?: unknown; detail?: unknown };
    type = typeof body.type === 'string' ? body.type : undefined;
    details = [body.details, body.detail].find((d): d is string => typeof d === 'string');
  } catch {
    details = text.slice(0, 200) || undefined;
  }
  if (type?.endsWith('password-must-be-changed')) {
    details = `the password of CUSTODY_USER must be changed at the custody service before it can log in (${details ?? type})`;
  }
  return new CustodyRequestError({ operation, upstreamStatus: status, upstreamType: type, upstreamDetails: details }, 'ERR_CUSTODY_AUTH');
}
