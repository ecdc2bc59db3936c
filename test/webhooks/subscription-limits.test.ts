import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { ADMIN_KEY, startTestService, type TestService } from '../helpers/service.js';

describe('webhook subscriptions: a limit on their number, and the list in pages', () => {
  let svc: TestService;
  const admin = (method: string, path: string, body?: unknown) => svc.call(method, `/api/v1.0/admin/webhooks${path}`, { key: ADMIN_KEY, body });
  const subscribe = (n: number) => admin('POST', '', { url: `https://93.184.215.14/hook/${n}`, events: ['*'] });

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true, env: { WEBHOOK_MAX_SUBSCRIPTIONS: '7' } });
  });
  afterAll(() => svc?.stop());

  it('refuses one more than WEBHOOK_MAX_SUBSCRIPTIONS (409 naming the limit), also when created at once', async () => {
    const made = await Promise.all(Array.from({ length: 12 }, (_, n) => subscribe(n)));
    expect(made.filter((r) => r.status === 201)).toHaveLength(7);
    const refused = made.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual([409, 409, 409, 409, 409]);
    expect(refused[0]!.body).toMatchObject({ errCode: 'ERR_TOO_MANY_SUBSCRIPTIONS', title: 'Conflict' });
    expect(refused[0]!.body.details).toContain('WEBHOOK_MAX_SUBSCRIPTIONS (7)');
    // A deleted one makes room for another.
    const first = made.find((r) => r.status === 201)!;
    expect((await admin('DELETE', `/${first.body.id}`)).status).toBe(204);
    expect((await subscribe(99)).status).toBe(201);
    expect((await subscribe(100)).status).toBe(409);
  });

  it('pages the list with limit and cursor, each subscription once, in creation order', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await admin('GET', `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      for (const s of res.body.items) expect(s.secret).toBeUndefined();
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    const whole = await admin('GET', '?limit=200');
    expect(whole.body.items.map((s: { id: string }) => s.id)).toEqual(seen);
    expect(whole.body.nextCursor).toBeUndefined();
    expect((await admin('GET', '')).body.items).toHaveLength(7);
    const bad = await admin('GET', '?cursor=nonsense');
    expect(bad.status).toBe(422);
    expect(bad.body.details).toContain('nextCursor');
    expect((await admin('GET', '?limit=0')).status).toBe(422);
  });
});
