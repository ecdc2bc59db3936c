import { randomUUID } from 'node:crypto';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED_LOGIN_PAUSE_MS, TokenSession } from '../../src/custody/custody-auth.js';
import { CustodyClient } from '../../src/custody/custody-client.js';
import { capturingLogger, listen, quietLogger } from './helpers.js';

const USER = 'connector-user';
const PASSWORD = 'connector-password-0123';

interface TokenServerOptions {
  /** Token paths served; the deprecated `/auth/tokens` alone models an older deployment. */
  paths?: string[];
  /** What the answer claims (seconds). */
  expiresIn?: number;
  /** How long a token really works on the server (ms); default: until revoked. */
  realLifetimeMs?: number;
  mustChangePassword?: boolean;
  /** Every authenticated call answers 401, whatever the token. */
  rejectAll?: boolean;
  /** The server's clock, which the token lifetimes are counted on. */
  now?: () => number;
}

/**
 * A management API that issues tokens the way the facts describe (Basic credentials and a
 * form body with grant_type=password; refresh with `refreshtoken`) and serves one protected
 * route, GET {mng}/operations/sign/{id}.
 */
async function tokenServer(o: TokenServerOptions = {}) {
  const tokens = new Map<string, number>();
  const now = o.now ?? Date.now;
  const refreshTokens = new Set<string>();
  const grants: { kind: 'password' | 'refresh'; path: string; form: Record<string, string> }[] = [];
  /** While set, every token request answers this status (a rate limit, an outage). */
  let outage: number | undefined;
  let tokenRequests = 0;
  const app = express();
  const problem = (res: express.Response, status: number, type: string, details: string) =>
    res
      .status(status)
      .type('application/problem+json')
      .send(JSON.stringify({ type: `/mng/errors/${type}`, title: 'Unauthorized', details, status }));
  const issue = () => {
    const access = randomUUID();
    const refresh = randomUUID();
    tokens.set(access, o.realLifetimeMs === undefined ? Infinity : now() + o.realLifetimeMs);
    refreshTokens.add(refresh);
    return { access_token: access, token_type: 'Bearer', expires_in: o.expiresIn ?? 1200, scope: '/mng', role: 'TRADER', refresh_token: refresh };
  };
  for (const path of o.paths ?? ['/mng/auth/token']) {
    app.post(path, express.urlencoded({ extended: false }), (req, res) => {
      tokenRequests++;
      if (outage) return problem(res, outage, 'unavailable', 'try again later');
      const form = req.body as Record<string, string>;
      if (form.grant_type !== 'password') return problem(res, 400, 'bad-request', 'grant_type must be password');
      if (form.refreshtoken) {
        grants.push({ kind: 'refresh', path, form });
        if (!refreshTokens.delete(form.refreshtoken)) return problem(res, 401, 'unauthorized', 'unknown refresh token');
        return res.status(201).json(issue());
      }
      grants.push({ kind: 'password', path, form });
      const basic = Buffer.from((req.get('authorization') ?? '').replace(/^Basic /, ''), 'base64').toString();
      if (basic !== `${USER}:${PASSWORD}` || form.username !== USER || form.password !== PASSWORD) {
        return problem(res, 401, 'unauthorized', 'Invalid user name or password');
      }
      if (o.mustChangePassword) return problem(res, 401, 'password-must-be-changed', 'The password must be changed');
      res.status(201).json(issue());
    });
  }
  let served = 0;
  app.get('/mng/operations/sign/:id', (req, res) => {
    const token = (req.get('authorization') ?? '').replace(/^Bearer /, '');
    const until = tokens.get(token);
    if (o.rejectAll || until === undefined || until < now()) return problem(res, 401, 'unauthorized', 'Invalid authentication data');
    served++;
    res.json({ operationID: req.params.id, status: 'PENDING', isApproved: false, dataToSign: [], publicKeys: [] });
  });
  const server = await listen(app);
  return {
    ...server,
    mng: `${server.url}/mng`,
    grants,
    served: () => served,
    tokenRequests: () => tokenRequests,
    revokeAll: () => tokens.clear(),
    setOutage: (status: number | undefined) => void (outage = status),
  };
}

describe('custody connector authentication by user and password (access tokens)', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  const client = (mng: string, extra: { now?: () => number; logger?: ReturnType<typeof quietLogger> } = {}) =>
    new CustodyClient({
      baseUrl: mng,
      auth: new TokenSession({
        baseUrl: mng,
        user: USER,
        password: PASSWORD,
        clientId: 'byow-test',
        fetch,
        logger: extra.logger ?? quietLogger(),
        now: extra.now,
      }),
      fetch,
      logger: quietLogger(),
      retries: 1,
      backoffMs: 1,
    });

  it('logs in once with Basic credentials and a form body, then reuses the token; concurrent calls share one login', async () => {
    const srv = await tokenServer();
    close = srv.close;
    const c = client(srv.mng);
    await Promise.all(Array.from({ length: 5 }, (_, i) => c.getSignOperation(`op-${i}`)));
    await c.getSignOperation('op-again');
    expect(srv.served()).toBe(6);
    expect(srv.grants).toHaveLength(1);
    expect(srv.grants[0]).toMatchObject({ kind: 'password', form: { grant_type: 'password', client_id: 'byow-test', scope: '/mng', username: USER } });
  });

  it('renews with the refresh token before the access token expires (20 minutes)', async () => {
    const srv = await tokenServer({ expiresIn: 1200 });
    close = srv.close;
    let now = Date.now();
    const c = client(srv.mng, { now: () => now });
    await c.getSignOperation('a');
    now += 18 * 60_000;
    await c.getSignOperation('b');
    expect(srv.grants.map((g) => g.kind)).toEqual(['password']);
    // Inside the last minute: renewed before use, with the refresh token, not the password.
    now += 60_000 + 1;
    await c.getSignOperation('c');
    expect(srv.grants.map((g) => g.kind)).toEqual(['password', 'refresh']);
    expect(srv.grants[1]!.form.password).toBeUndefined();
    expect(srv.served()).toBe(3);
  });

  it('logs in again when the refresh token is refused or the token has lapsed', async () => {
    const srv = await tokenServer({ expiresIn: 1200 });
    close = srv.close;
    let now = Date.now();
    const c = client(srv.mng, { now: () => now });
    await c.getSignOperation('a');
    // Idle past the expiry: the refresh token is not tried, a fresh login is made.
    now += 21 * 60_000;
    await c.getSignOperation('b');
    expect(srv.grants.map((g) => g.kind)).toEqual(['password', 'password']);
  });

  it('a 401 (token revoked or expired early) renews once and the call succeeds', async () => {
    const srv = await tokenServer();
    close = srv.close;
    const c = client(srv.mng);
    await c.getSignOperation('a');
    srv.revokeAll();
    await c.getSignOperation('b');
    expect(srv.served()).toBe(2);
    expect(srv.grants.map((g) => g.kind)).toEqual(['password', 'password']);
  });

  it('a token the server expires sooner than it said is renewed on the 401', async () => {
    let serverNow = Date.now();
    const srv = await tokenServer({ expiresIn: 1200, realLifetimeMs: 200, now: () => serverNow });
    close = srv.close;
    const c = client(srv.mng);
    await c.getSignOperation('a');
    // The server's clock passes the token's real lifetime; the client's still trusts expires_in.
    serverNow += 300;
    await c.getSignOperation('b');
    expect(srv.served()).toBe(2);
    expect(srv.grants).toHaveLength(2);
  });

  it('a second 401 after renewing is final: ERR_CUSTODY_AUTH, one renewal only', async () => {
    const srv = await tokenServer({ rejectAll: true });
    close = srv.close;
    const err = await client(srv.mng)
      .getSignOperation('a')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502, errCode: 'ERR_CUSTODY_AUTH', retryable: false });
    expect(srv.grants).toHaveLength(2);
  });

  it('wrong credentials and a password that must be changed are clear, final errors; nothing secret is logged', async () => {
    const srv = await tokenServer({ mustChangePassword: true });
    close = srv.close;
    const { logger, lines } = capturingLogger();
    const err = await client(srv.mng, { logger })
      .getSignOperation('a')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ errCode: 'ERR_CUSTODY_AUTH' });
    expect((err as Error).message).toMatch(/password of CUSTODY_USER must be changed/);
    expect(srv.grants).toHaveLength(1);
    const wrong = new CustodyClient({
      baseUrl: srv.mng,
      auth: new TokenSession({ baseUrl: srv.mng, user: USER, password: 'not-the-password', clientId: 'x', fetch, logger }),
      fetch,
      logger,
    });
    await expect(wrong.getSignOperation('a')).rejects.toMatchObject({ errCode: 'ERR_CUSTODY_AUTH', problem: { upstreamStatus: 401 } });
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  it('a refused password is not tried again for a minute: calls meanwhile fail at once with the refusal, then one login is tried', async () => {
    const srv = await tokenServer();
    close = srv.close;
    let now = Date.now();
    const wrong = new CustodyClient({
      baseUrl: srv.mng,
      auth: new TokenSession({ baseUrl: srv.mng, user: USER, password: 'not-the-password', clientId: 'x', fetch, logger: quietLogger(), now: () => now }),
      fetch,
      logger: quietLogger(),
      retries: 1,
      backoffMs: 1,
    });
    for (let i = 0; i < 5; i++) {
      await expect(wrong.getSignOperation(`op-${i}`)).rejects.toMatchObject({ errCode: 'ERR_CUSTODY_AUTH', problem: { upstreamStatus: 401 } });
      now += 10_000;
    }
    // Five calls over 50 s: one login attempt, not five (a user locked after repeated failures).
    expect(srv.tokenRequests()).toBe(1);
    now += REFUSED_LOGIN_PAUSE_MS;
    await expect(wrong.getSignOperation('later')).rejects.toMatchObject({ errCode: 'ERR_CUSTODY_AUTH' });
    expect(srv.tokenRequests()).toBe(2);
  });

  it('a token endpoint that answers 408 (a timeout) is not a refusal: the next call logs in at once', async () => {
    const srv = await tokenServer();
    close = srv.close;
    const c = client(srv.mng);
    srv.setOutage(408);
    await expect(c.getSignOperation('a')).rejects.toMatchObject({ status: 503 });
    srv.setOutage(undefined);
    await c.getSignOperation('b');
    expect(srv.served()).toBe(1);
  });

  it('a token just obtained for a 401 that meets a 401 again is not renewed again for a minute', async () => {
    const srv = await tokenServer({ rejectAll: true });
    close = srv.close;
    let now = Date.now();
    const c = client(srv.mng, { now: () => now });
    await expect(c.getSignOperation('a')).rejects.toMatchObject({ errCode: 'ERR_CUSTODY_AUTH' });
    expect(srv.grants).toHaveLength(2);
    for (let i = 0; i < 3; i++) await expect(c.getSignOperation(`b-${i}`)).rejects.toMatchObject({ errCode: 'ERR_CUSTODY_AUTH' });
    expect(srv.grants).toHaveLength(2);
    now += REFUSED_LOGIN_PAUSE_MS + 1;
    await expect(c.getSignOperation('c')).rejects.toMatchObject({ errCode: 'ERR_CUSTODY_AUTH' });
    expect(srv.grants).toHaveLength(3);
  });

  it('falls back to the deprecated /auth/tokens path of older deployments', async () => {
    const srv = await tokenServer({ paths: ['/mng/auth/tokens'] });
    close = srv.close;
    const c = client(srv.mng);
    await c.getSignOperation('a');
    await c.getSignOperation('b');
    expect(srv.served()).toBe(2);
    expect(srv.grants.map((g) => g.path)).toEqual(['/mng/auth/tokens']);
  });

  it('a token still valid is used when its early renewal meets a 429; the renewal is tried again after a pause, not on every call', async () => {
    const srv = await tokenServer({ expiresIn: 1200 });
    close = srv.close;
    let now = Date.now();
    const c = client(srv.mng, { now: () => now });
    await c.getSignOperation('a');
    srv.setOutage(429);
    // Inside the renewal window (the last minute): the token works for 30 s more.
    now += 19.5 * 60_000;
    await expect(c.getSignOperation('b')).resolves.toMatchObject({ operationID: 'b', status: 'PENDING' });
    await c.getSignOperation('c');
    expect(srv.tokenRequests()).toBe(2);
    now += 5_001;
    await c.getSignOperation('d');
    expect(srv.tokenRequests()).toBe(3);
    // The token endpoint is back: the next try renews with the refresh token.
    srv.setOutage(undefined);
    now += 5_001;
    await c.getSignOperation('e');
    expect(srv.grants.map((g) => g.kind)).toEqual(['password', 'refresh']);
    expect(srv.served()).toBe(5);
  });

  it('a token that has expired is not used when its renewal fails: the call ends 503', async () => {
    const srv = await tokenServer({ expiresIn: 1200 });
    close = srv.close;
    let now = Date.now();
    const c = client(srv.mng, { now: () => now });
    await c.getSignOperation('a');
    srv.setOutage(503);
    now += 20 * 60_000 + 1;
    const err = await c.getSignOperation('b').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, errCode: 'ERR_CUSTODY_UNAVAILABLE', retryable: true });
    expect(srv.served()).toBe(1);
  });

  it('an unreachable token endpoint is retried like any transient failure, then 503', async () => {
    const srv = await tokenServer();
    const mng = srv.mng;
    await srv.close();
    const err = await client(mng)
      .getSignOperation('a')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, errCode: 'ERR_CUSTODY_UNAVAILABLE', retryable: true });
  });
});
