import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/sandbox/free-port.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';

describe('job dashboard at /admin/queues', () => {
  let svc: TestService;
  const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`ops:${key}`).toString('base64')}` });

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true });
  });
  afterAll(() => svc.stop());

  it('asks a browser for credentials and refuses keys without the admin scope', async () => {
    const none = await svc.call('GET', '/admin/queues');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
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
    expect(queues.map((q) => q.name).sort()).toEqual(['broadcast', 'confirm', 'reconcile', 'replace']);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    const retry = await svc.call('PUT', '/admin/queues/api/queues/broadcast/retry/failed', { key: ADMIN_KEY });
    expect(retry.status).toBe(405);
  });
});
