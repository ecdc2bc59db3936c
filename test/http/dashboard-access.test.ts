import type { Server } from 'node:http';
import { Queue } from 'bullmq';
import express from 'express';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { mountDashboard } from '../../src/http/dashboard/dashboard.js';
import { errorHandler } from '../../src/http/error-handler.js';
import { hashApiKey, type ApiKeyRecord } from '../../src/security/api-keys.js';
import { testRedis } from '../helpers/redis.js';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';

const OLD_KEY = 'old-admin-key-leaked-0123456789';
const NEW_KEY = 'new-admin-key-rotated-0123456789';
const { redis, prefix } = testRedis();
const servers: Server[] = [];
afterAll(async () => {
  for (const q of queues) await q.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

/** One API process: the dashboard over the shared Redis, with the API_KEYS it was started with. */
const queues: Queue[] = [];
async function apiProcess(records: ApiKeyRecord[], readOnly = true): Promise<string> {
  const app = express();
  const q = new Queue('broadcast', { connection: redis.duplicate(), prefix: `${prefix}bull` });
  queues.push(q);
  mountDashboard(app, { redis, prefix, logger: pino({ level: 'silent' }), queues: [q], records, readOnly });
  app.use(errorHandler);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  const a = server.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

/**
 * Who may use the dashboard across API processes and key changes: sessions follow the key
 * itself, not its name, and no credential makes a change requested from another site.
 */
describe('dashboard access across key changes and sites', () => {
  it('rotating a leaked admin key (same name, new key) ends the sessions opened with the old key', async () => {
    const before = await apiProcess([{ name: 'ops', sha256: hashApiKey(OLD_KEY), scopes: ['admin'] }]);
    const login = await fetch(`${before}/admin/queues/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: OLD_KEY }),
    });
    expect(login.status).toBe(303);
    const cookie = /^([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ?? '';
    expect((await fetch(`${before}/admin/queues/api/queues`, { headers: { cookie } })).status).toBe(200);

    // The operator replaces the key (API_KEYS keeps the name 'ops', new sha256) and restarts.
    const after = await apiProcess([{ name: 'ops', sha256: hashApiKey(NEW_KEY), scopes: ['admin'] }]);
    expect((await fetch(`${after}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${OLD_KEY}` } })).status).toBe(401);
    // …and so is the session the old key opened.
    expect((await fetch(`${after}/admin/queues/api/queues`, { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a change requested from another site whatever the credentials (Basic as a browser caches it), and takes it from the same site', async () => {
    const url = await apiProcess([{ name: 'ops', sha256: hashApiKey(NEW_KEY), scopes: ['admin'] }], false);
    const basic = `Basic ${Buffer.from(`x:${NEW_KEY}`).toString('base64')}`;
    const retry = (origin: string) =>
      fetch(`${url}/admin/queues/api/queues/broadcast/retry/failed`, { method: 'PUT', headers: { authorization: basic, origin } });
    expect((await retry('https://evil.example')).status).toBe(403);
    expect((await retry(url)).status).toBe(200);
    expect((await fetch(`${url}/admin/queues/api/queues`, { headers: { authorization: basic, origin: 'https://evil.example' } })).status).toBe(200);
  });
});
