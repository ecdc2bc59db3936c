import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { redactUrl } from '../../src/webhooks/redact-url.js';
import { until } from '../pipeline/support.js';
import { ADMIN_KEY, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver } from './support.js';

const SECRET = 'tok-9f3c1d2e7a6b5c4d';

describe('webhook URLs in logs and error messages', () => {
  let svc: TestService;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    svc = await startTestService(
      { ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } },
      {
        pipeline: true,
        workers: true,
        logger: pino({ level: 'debug' }, sink),
        env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: '20', WEBHOOK_BACKOFF_MAX_MS: '40', WEBHOOK_RETRY_SECONDS: '1', WEBHOOK_TIMEOUT_MS: '500' },
      },
    );
  });
  afterAll(() => svc?.stop());

  it('redacts userinfo, query and fragment', () => {
    expect(redactUrl(`https://user:${SECRET}@host.example:8443/hook?token=${SECRET}#${SECRET}`)).toBe('https://***@host.example:8443/hook?…#…');
    expect(redactUrl('https://host.example/hook')).toBe('https://host.example/hook');
    expect(redactUrl(`not a url ?token=${SECRET}`)).not.toContain(SECRET);
    expect(redactUrl(`//user:${SECRET}@host/x`)).not.toContain(SECRET);
  });

  it('failing deliveries log the URL without its token; the admin API shows it whole', async () => {
    const receiver = await startReceiver([], 500);
    const url = `${receiver.url}?token=${SECRET}`;
    const created = await svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url, events: ['*'] } });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(url);
    expect((await svc.call('GET', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY })).body.items[0].url).toBe(url);
    expect((await svc.call('POST', `/api/v1.0/admin/webhooks/${created.body.id}/test`, { key: ADMIN_KEY })).status).toBe(202);
    await until('three failed attempts', () => lines.filter((l) => l.includes('webhook delivery attempt failed')).length >= 3, 10_000);
    const failed = lines.filter((l) => l.includes('webhook delivery attempt failed'));
    expect(failed[0]).toContain(`${receiver.url}?…`);
    expect(receiver.received.length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    // A refused registration names the URL without its query either (the error is logged too).
    const refused = await svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url: `not a url?token=${SECRET}`, events: ['*'] } });
    expect(refused.status).toBe(422);
    expect(refused.body.details).not.toContain(SECRET);
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    await svc.call('DELETE', `/api/v1.0/admin/webhooks/${created.body.id}`, { key: ADMIN_KEY });
    await receiver.close();
  });
});
