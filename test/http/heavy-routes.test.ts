import { randomBytes } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { deriveAddress } from '../../src/vaults/derivation/derive-addresses.js';
import { LedgerRegistry } from '../../src/ledger/registry.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';

// A back end nothing listens on: address derivation needs none, and balances are not asked for here.
const LEDGERS = { btcregtest: { backend: 'esplora', url: 'http://127.0.0.1:9' } };
const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const DERIVE = '/api/v1.0/ledgers/btc/address-from-publickey';
const BALANCE = `/api/v1.0/ledgers/btcregtest/addresses/${ADDRESS}/balance`;

/** Distinct compressed secp256k1 keys, repeated to `n`: each entry is derived anew by the route. */
function keys(n: number): string[] {
  const distinct = Array.from({ length: 200 }, () => Buffer.from(ecc.pointFromScalar(randomBytes(32), true)!).toString('hex'));
  return Array.from({ length: n }, (_, i) => distinct[i % distinct.length] as string);
}

describe('heavy open routes: derivation off the event loop', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(LEDGERS, { env: { OPEN_ROUTES_ANONYMOUS: 'true', OPEN_ROUTES_RATE_PER_MINUTE: '0' } });
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('four concurrent 10,000-key batches each answer every address while /status keeps answering', async () => {
    const body = { keys: keys(10_000) };
    let running = true;
    const batches = Promise.all(Array.from({ length: 4 }, () => svc.call('POST', DERIVE, { body }))).finally(() => {
      running = false;
    });
    let statusAnswers = 0;
    while (running) {
      const status = await svc.call('GET', '/api/v1.0/status');
      expect(typeof status.body.healthy).toBe('boolean');
      if (running) statusAnswers++;
    }
    const results = await batches;
    const codec = new LedgerRegistry([], families).addressCodec('btc');
    const expected = body.keys.map((k, i) => deriveAddress(codec, k, i, undefined));
    for (const r of results) {
      expect(r.status).toBe(200);
      expect(r.body.items.map((item: { address: string }) => item.address)).toEqual(expected);
    }
    // /status was served while the batches were being derived (test/http/derive-pool.test.ts: in the pool's threads).
    expect(statusAnswers).toBeGreaterThan(0);
  }, 120_000);
});

describe('heavy open routes: access and rate limit', () => {
  let closed: TestService;
  let limited: TestService;
  beforeAll(async () => {
    closed = await startTestService(LEDGERS);
    limited = await startTestService(LEDGERS, { env: { OPEN_ROUTES_ANONYMOUS: 'true', OPEN_ROUTES_RATE_PER_MINUTE: '1', OPEN_ROUTES_BURST: '2' } });
  });
  afterAll(async () => {
    await closed.stop();
    await limited.stop();
  });

  it('by default outside the sandbox needs an API key with the read scope', async () => {
    const body = { keys: keys(1) };
    for (const [method, path, opts] of [
      ['POST', DERIVE, { body }],
      ['GET', BALANCE, {}],
    ] as const) {
      const anonymous = await closed.call(method, path, opts);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ errCode: 'ERR_UNAUTHORIZED', title: 'Unauthorized' });
    }
    const withKey = await closed.call('POST', DERIVE, { body, key: READ_KEY });
    expect(withKey.status).toBe(200);
    expect(withKey.body.items[0].address).toMatch(/^bc1q/);
    const doc = (await closed.call('GET', '/api/v1.0/openapi.json')).body;
    expect(doc.paths['/api/v1.0/ledgers/{ledgerId}/address-from-publickey'].post.security).toEqual([{ bearer: ['read'] }]);
  });

  it('answers 429 in the AppError shape with Retry-After once a client spent its burst', async () => {
    const body = { keys: keys(1) };
    expect((await limited.call('POST', DERIVE, { body })).status).toBe(200);
    expect((await limited.call('POST', DERIVE, { body })).status).toBe(200);
    const over = await limited.call('POST', DERIVE, { body });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ errCode: 'ERR_RATE_LIMITED', title: 'Too many requests', type: '/api/v1.0/errors/rate-limited' });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.body.retryAfterSeconds).toBe(retryAfter);
    // The balance route shares the client's bucket.
    expect((await limited.call('GET', BALANCE)).status).toBe(429);
  });

  it('counts each API key on its own bucket, and a bad key costs no token', async () => {
    const body = { keys: keys(1) };
    for (let i = 0; i < 3; i++) expect((await closed.call('POST', DERIVE, { body, key: 'not-a-valid-key-0123456789' })).status).toBe(401);
    const strict = await startTestService(LEDGERS, { env: { OPEN_ROUTES_RATE_PER_MINUTE: '1', OPEN_ROUTES_BURST: '1' } });
    try {
      expect((await strict.call('POST', DERIVE, { body, key: READ_KEY })).status).toBe(200);
      expect((await strict.call('POST', DERIVE, { body, key: READ_KEY })).status).toBe(429);
      expect((await strict.call('POST', DERIVE, { body, key: ADMIN_KEY })).status).toBe(200);
      expect((await strict.call('GET', '/api/v1.0/vaults/none/balance', { key: ADMIN_KEY })).status).toBe(429);
    } finally {
      await strict.stop();
    }
  });
});
