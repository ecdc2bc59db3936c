import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { findApiKey, type ApiKeyRecord } from '../../security/api-keys.js';
import { clientAddress } from '../client-address.js';
import type { AuthThrottle } from '../auth-throttle.js';
import { RateLimitedError } from '../../platform/errors.js';
import { clearSessionCookie, isCrossSite, sessionToken, setSessionCookie, SESSION_IDLE_SECONDS, type DashboardSessions } from './dashboard-sessions.js';

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(base: string, message?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Job dashboard: log in</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;display:flex;justify-content:center;padding-top:12vh;margin:0}
form{background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002;width:22rem}
h1{font-size:1.2rem;margin:0 0 1rem}label{display:block;margin-bottom:.4rem}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;margin-bottom:1rem}
button{padding:.5rem 1.2rem;font-size:1rem}p{color:#555;font-size:.85rem}.error{color:#b00020}
</style></head><body>
<form method="post" action="${escapeHtml(base)}/login">
<h1>Job dashboard</h1>
${message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : ''}
<label for="key">Admin API key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Log in</button>
<p>The session ends after ${SESSION_IDLE_SECONDS / 60} minutes without use, or when you log out.</p>
</form></body></html>`;
}

function sendPage(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
    })
    .send(html);
}

/**
 * The dashboard's login form and logout, outside its authentication: an admin API key
 * entered once opens a session whose cookie the dashboard's own API calls carry.
 */
export function dashboardLoginRouter(
  base: string,
  records: readonly ApiKeyRecord[],
  sessions: DashboardSessions,
  logger: Logger,
  throttle?: AuthThrottle,
): Router {
  const router = express.Router();
  router.get('/login', (_req, res) => sendPage(res, 200, loginPage(base)));
  router.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), async (req: Request, res: Response, next) => {
    try {
      if (isCrossSite(req)) return sendPage(res, 403, loginPage(base, 'Log in from the dashboard itself.'));
      const key = typeof req.body?.key === 'string' ? (req.body.key as string).trim() : '';
      let refusal: RateLimitedError | undefined;
      try {
        throttle?.refuseIfBlocked(req, key || undefined);
      } catch (e) {
        if (!(e instanceof RateLimitedError)) throw e;
        refusal = e;
      }
      const record = !refusal && key ? findApiKey(records, key) : undefined;
      if (!refusal && (!record || !record.scopes.includes('admin'))) {
        refusal = await throttle?.failed(req, key ? (record ? 'no_admin_scope' : 'unknown_key') : 'missing_key', key || undefined);
        // Without a throttle, each refusal is logged; with one, it logs once a minute per address.
        if (!throttle) logger.warn({ ip: clientAddress(req) }, 'dashboard login refused');
        if (!refusal) return sendPage(res, 401, loginPage(base, 'That is not an API key with the admin scope.'));
      }
      if (refusal || !record) {
        const wait = String((refusal as RateLimitedError).fields.retryAfterSeconds);
        res.set('retry-after', wait);
        if ((req.headers.accept ?? '').includes('text/html')) return sendPage(res, 429, loginPage(base, `Too many failed logins; try again in ${wait} s.`));
        return void res.status(429).json((refusal as RateLimitedError).toBody());
      }
      setSessionCookie(req, res, await sessions.create(record.sha256), base);
      logger.info({ keyName: record.name }, 'dashboard login');
      res.redirect(303, `${base}/`);
    } catch (e) {
      next(e);
    }
  });
  const logout = async (req: Request, res: Response, next: (e: unknown) => void) => {
    try {
      const token = sessionToken(req);
      if (token) await sessions.end(token);
      clearSessionCookie(req, res, base);
      res.redirect(303, `${base}/login`);
    } catch (e) {
      next(e);
    }
  };
  // GET too: bull-board's header links are plain links. Logging out is harmless to force.
  router.get('/logout', logout);
  router.post('/logout', logout);
  return router;
}
