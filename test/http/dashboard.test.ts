import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/dashboard/dashboard-sessions.js';
import { freePort } from '../../src/dev/free-port.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';

describe('job dashboard at /admin/queues', () => {
  let svc: TestService;
  const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`ops:${key}`).toString('base64')}` });
  const form = (key: string, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}/admin/queues/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ key }),
    });
  const cookieOf = (res: Response) => /^([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true });
  });
  afterAll(() => svc.stop());

  it('asks tools for credentials, sends browsers to the login form, and refuses keys without the admin scope', async () => {
    const none = await svc.call('GET', '/admin/queues');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
    const api = await svc.call('GET', '/admin/queues/api/queues');
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const browser = await fetch(`${svc.url}/admin/queues/queue/broadcast`, { redirect: 'manual', headers: { accept: 'text/html,*/*' } });
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toBe('/admin/queues/login');
    expect((await svc.call('GET', '/admin/queues', { headers: basic(READ_KEY) })).status).toBe(401);
    expect((await svc.call('GET', '/admin/queues', { headers: basic('wrong-key-wrong-key') })).status).toBe(401);
  });

  it('shows every queue, read-only, to an admin key (Basic or Bearer)', async () => {
    const page = await svc.call('GET', '/admin/queues', { headers: basic(ADMIN_KEY) });
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('<html');
    const api = await svc.call('GET', '/admin/queues/api/queues', { key: ADMIN_KEY });
    expect(api.status).toBe(200);
    const queues = api.body.queues as { name: string; readOnlyMode: boolean }[];
    expect(queues.map((q) => q.name).sort()).toEqual(['broadcast', 'confirm', 'deposit-backfills', 'deposits', 'reconcile', 'replace', 'webhooks']);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    const retry = await svc.call('PUT', '/admin/queues/api/queues/broadcast/retry/failed', { key: ADMIN_KEY });
    expect(retry.status).toBe(405);
  });

  it('logs in with the form: a short-lived HttpOnly SameSite=Strict cookie that the API calls accept, until logout', async () => {
    const page = await fetch(`${svc.url}/admin/queues/login`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('name="key"');

    const res = await form(ADMIN_KEY);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin/queues/');
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[\\w-]{43};`));
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\/admin\/queues/);
    expect(setCookie).not.toMatch(/; Secure/); // plain http here; https gets Secure
    expect(setCookie).not.toContain(ADMIN_KEY);
    const cookie = cookieOf(res);

    const api = await svc.call('GET', '/admin/queues/api/queues', { headers: { cookie } });
    expect(api.status).toBe(200);
    expect(api.body.queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).toBe(true);
    expect((await svc.call('PUT', '/admin/queues/api/queues/broadcast/retry/failed', { headers: { cookie } })).status).toBe(405);
    // A change asked for from another site is refused even with the cookie.
    expect((await svc.call('PUT', '/admin/queues/api/queues/broadcast/retry/failed', { headers: { cookie, origin: 'https://evil.example' } })).status).toBe(
      403,
    );

    const out = await fetch(`${svc.url}/admin/queues/logout`, { redirect: 'manual', headers: { cookie } });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
    expect((await svc.call('GET', '/admin/queues/api/queues', { headers: { cookie } })).status).toBe(401);
  });

  it('refuses the form for keys without the admin scope, unknown keys and other sites', async () => {
    for (const key of [READ_KEY, 'wrong-key-wrong-key', '']) {
      const res = await form(key);
      expect(res.status).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(await res.text()).toContain('not an API key with the admin scope');
    }
    const cross = await form(ADMIN_KEY, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.headers.get('set-cookie')).toBeNull();
    // A made-up session token opens nothing.
    expect((await svc.call('GET', '/admin/queues/api/queues', { headers: { cookie: `${SESSION_COOKIE}=${'a'.repeat(43)}` } })).status).toBe(401);
  });

  it('marks the cookie Secure when the browser came over https', async () => {
    const res = await form(ADMIN_KEY, { 'x-forwarded-proto': 'https' });
    expect(res.headers.get('set-cookie')).toMatch(/; Secure/);
  });
});
