import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { nonPublicKind } from '../../src/webhooks/url-guard.js';
import { deliveryAttempts, backoffDelay } from '../../src/webhooks/webhook-queue.js';
import { loadConfig } from '../../src/config/load-config.js';
import { families } from '../../adaptors/index.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';
import type { Operation } from '../../src/withdrawals/model/operation.js';
import { fakeOperation } from './support.js';

describe('admin: webhook subscriptions refuse what they must, and the withdrawals of every vault', () => {
  let svc: TestService;
  const admin = (method: string, path: string, body?: unknown) => svc.call(method, `/api/v1.0/admin${path}`, { key: ADMIN_KEY, body });

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true });
  });
  afterAll(() => svc.stop());

  it('refuses loopback, link-local and private targets (422 naming why) and non-http schemes', async () => {
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:9/hook', /127\.0\.0\.1 is a loopback address/],
      ['http://localhost/hook', /localhost resolves to .* a loopback address/],
      ['http://[::1]/hook', /::1 is a loopback address/],
      ['http://169.254.169.254/latest/meta-data', /link-local/],
      ['https://10.1.2.3/hook', /10\.1\.2\.3 is a private address/],
      ['http://192.168.0.10/hook', /private/],
      ['http://[fd00::1]/hook', /private/],
      ['http://[::ffff:127.0.0.1]/hook', /loopback/],
      ['http://0.0.0.0/hook', /unspecified/],
      ['ftp://example.com/hook', /scheme 'ftp' is not allowed. Valid values: http, https/],
      ['http://user:pw@example.com/hook', /credentials/],
      ['not a url', /is not a URL/],
    ];
    for (const [url, why] of cases) {
      const res = await admin('POST', '/webhooks', { url, events: ['*'] });
      expect(res.status, url).toBe(422);
      expect(res.body.errCode).toBe('ERR_INVALID_ARGUMENTS');
      expect(res.body.details, url).toMatch(why);
    }
    const badEvent = await admin('POST', '/webhooks', { url: 'http://8.8.8.8/hook', events: ['withdrawal.done'] });
    expect(badEvent.status).toBe(422);
    expect(badEvent.body.details).toContain('Valid values: *, withdrawal.created, withdrawal.sign_requested');
    expect((await admin('GET', '/webhooks')).body.items).toEqual([]);
    expect((await svc.call('GET', '/api/v1.0/admin/webhooks', { key: READ_KEY })).status).toBe(403);
    // A public address literal needs no resolution: accepted (nothing is sent until an event comes).
    const ok = await admin('POST', '/webhooks', { url: 'https://93.184.215.14/hook', events: ['withdrawal.confirmed'] });
    expect(ok.status).toBe(201);
    expect(ok.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });

  it('classifies addresses', () => {
    expect(nonPublicKind('8.8.8.8')).toBeUndefined();
    expect(nonPublicKind('2606:4700::1111')).toBeUndefined();
    expect(nonPublicKind('172.31.255.255')).toBe('private');
    expect(nonPublicKind('172.32.0.1')).toBeUndefined();
    expect(nonPublicKind('100.64.0.1')).toBe('private');
    expect(nonPublicKind('fe80::1')).toBe('link-local');
    expect(nonPublicKind('::ffff:a9fe:a9fe')).toBe('link-local');
    expect(nonPublicKind('224.0.0.1')).toBe('multicast or reserved');
  });

  it('retries deliveries for at least 24 hours by default', () => {
    const config = loadConfig(
      {
        LEDGERS: JSON.stringify({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }),
        SANDBOX: 'false',
        API_KEYS: JSON.stringify([{ name: 'a', key: 'a-key-0123456789abcdef0123456789abcdef', scopes: ['read'] }]),
        CUSTODY_URL: 'http://c',
        CALLBACK_SECRET: 'x'.repeat(16),
      },
      families,
      't',
    );
    const attempts = deliveryAttempts(config);
    let total = 0;
    for (let made = 1; made < attempts; made++) total += backoffDelay(config, made);
    expect(total).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    expect(backoffDelay(config, 1)).toBe(10_000);
    expect(backoffDelay(config, 30)).toBe(3_600_000);
  });

  it('lists withdrawals across vaults, newest first, with filters and paging', async () => {
    const store = svc.pipeline!.deps.store;
    const base = Date.parse('2026-01-01T00:00:00Z');
    const ops: Operation[] = [];
    for (let i = 0; i < 12; i++) {
      // Several share a millisecond: paging must neither skip nor repeat them.
      const op = fakeOperation({ vaultId: i % 3 === 0 ? 'vault-x' : 'vault-y', createdAt: new Date(base + Math.floor(i / 2) * 60_000).toISOString() });
      await store.create(op);
      if (i % 4 === 1) await store.transition(op.id, ['EXECUTING'], 'FAILED', () => ({ failureReason: 'no' }));
      if (i % 4 === 2) await store.update(op.id, (o) => ({ ...o, stuck: { since: o.createdAt, reason: 'fee below market' } }) as typeof o);
      ops.push(op);
    }
    const newestFirst = [...ops].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)).map((o) => o.id);
    const ids = (body: { items: { withdrawalId: string }[] }) => body.items.map((o) => o.withdrawalId);

    const all: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await admin('GET', `/withdrawals?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      all.push(...ids(res.body));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(all).toEqual(newestFirst);
    expect(pages).toBe(3);

    const failed = await admin('GET', '/withdrawals?status=FAILED');
    expect(ids(failed.body)).toEqual(newestFirst.filter((id) => ops.findIndex((o) => o.id === id) % 4 === 1));
    const two = await admin('GET', '/withdrawals?status=FAILED,EXECUTING&vaultId=vault-x');
    expect(ids(two.body)).toEqual(newestFirst.filter((id) => ops.find((o) => o.id === id)!.vaultId === 'vault-x'));
    const stuck = await admin('GET', '/withdrawals?stuck=true');
    expect(ids(stuck.body).sort()).toEqual(
      ops
        .filter((_, i) => i % 4 === 2)
        .map((o) => o.id)
        .sort(),
    );
    const notStuck = await admin('GET', '/withdrawals?stuck=false&limit=200');
    expect(notStuck.body.items).toHaveLength(9);
    const window = await admin('GET', `/withdrawals?from=${new Date(base + 60_000).toISOString()}&to=${new Date(base + 120_000).toISOString()}`);
    expect(ids(window.body).sort()).toEqual(
      ops
        .slice(2, 6)
        .map((o) => o.id)
        .sort(),
    );
    expect((await admin('GET', '/withdrawals?ledgerId=ethdev&limit=200')).body.items).toHaveLength(12);

    const bad: [string, RegExp][] = [
      ['status=DONE', /EXECUTING.*SIGNED.*BROADCAST.*CONFIRMED.*FAILED/],
      ['ledgerId=solana', /Unknown ledgerId 'solana'. Valid values: ethdev/],
      ['stuck=maybe', /"true"\|"false"/],
      ['from=yesterday', /from must be an ISO 8601 time/],
      [`from=${new Date(base + 1).toISOString()}&to=${new Date(base).toISOString()}`, /from is later than to/],
      ['limit=201', /limit/],
      ['cursor=bm9wZQ', /cursor .* is not a cursor/],
    ];
    for (const [q, why] of bad) {
      const res = await admin('GET', `/withdrawals?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.details, q).toMatch(why);
    }
    expect((await svc.call('GET', '/api/v1.0/admin/withdrawals', { key: READ_KEY })).status).toBe(403);
    const doc = await svc.call('GET', '/api/v1.0/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/api/v1.0/admin/withdrawals', '/api/v1.0/admin/webhooks', '/api/v1.0/admin/webhooks/{id}/deliveries/{deliveryId}/retry']),
    );
  });
});
