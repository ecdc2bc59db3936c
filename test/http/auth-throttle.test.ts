import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { ADMIN_KEY, startTestService, type TestService } from '../helpers/service.js';

const VAULTS = '/api/v1.0/admin/vaults';
const bad = (i: number) => `wrong-key-${i}-0123456789abcdef0123456789abcdef`;

describe('failed authentication is throttled per client address and per key prefix', () => {
  let svc: TestService;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    svc = await startTestService(
      { ethdev: { rpcUrl: 'http://127.0.0.1:9' } },
      { pipeline: true, logger: createLogger('info', [], sink), env: { AUTH_FAILURES_PER_MINUTE: '1', AUTH_FAILURES_BURST: '3', TRUST_PROXY: '127.0.0.1' } },
    );
  });
  afterAll(() => svc.stop());

  const from = (ip: string, key: string) => svc.call('GET', VAULTS, { key, headers: { 'x-forwarded-for': ip } });

  it('a client address: 401 for its first failures, then 429 with Retry-After for every attempt, its right key included; one warning', async () => {
    const before = lines.length;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await from('198.51.100.1', bad(i))).status);
    expect(statuses).toEqual([401, 401, 401]);
    const throttled = await from('198.51.100.1', bad(3));
    expect(throttled.status).toBe(429);
    expect(throttled.body).toMatchObject({ errCode: 'ERR_RATE_LIMITED', title: 'Too many requests' });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await from('198.51.100.1', ADMIN_KEY)).status).toBe(429);
    // Another client is not affected.
    expect((await from('198.51.100.2', ADMIN_KEY)).status).toBe(200);
    const mine = lines.slice(before);
    expect(mine.filter((l) => l.level === 40)).toHaveLength(1);
    expect(mine.find((l) => l.level === 40)).toMatchObject({ securityEvent: 'auth', ip: '198.51.100.1', reason: 'unknown_key' });
    const text = await svc.core.metrics.registry.metrics();
    expect(text).toMatch(/byow_auth_failures_total\{reason="unknown_key"\} 4/);
    expect(text).toMatch(/byow_auth_failures_total\{reason="throttled"\} 1/);
  });

  it('a key prefix: guesses that share their first 8 characters are throttled from any address', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await from(`203.0.113.${i + 1}`, `sameprfx-${i}-0123456789abcdef0123456789abcdef`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await from('203.0.113.50', 'sameprfx-9-0123456789abcdef0123456789abcdef')).status).toBe(429);
    expect((await from('203.0.113.51', 'otherpfx-0-0123456789abcdef0123456789abcdef')).status).toBe(401);
  });

  it('dashboard logins: the same throttle', async () => {
    const login = (key: string) =>
      fetch(`${svc.url}/admin/queues/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.9', origin: svc.url },
        body: new URLSearchParams({ key }),
      });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await login(`login-${i}-0123456789abcdef0123456789abcdef`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const throttled = await login(ADMIN_KEY);
    expect(throttled.status).toBe(429);
    expect(await throttled.json()).toMatchObject({ errCode: 'ERR_RATE_LIMITED' });
  });
});
