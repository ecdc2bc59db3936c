import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

/** Nothing listens on the node: a balance read that passes the rate limit answers 503, one that does not 429. */
const LEDGERS = { ethdev: { rpcUrl: 'http://127.0.0.1:9' } };
const BALANCE = '/api/v1.0/ledgers/ethdev/addresses/0x8240Fd14931292B85C850514c8a4eBd35E56EDA4/balance';
const LIMITED = { OPEN_ROUTES_ANONYMOUS: 'true', OPEN_ROUTES_RATE_PER_MINUTE: '1', OPEN_ROUTES_BURST: '1' };
const CALLBACK = '/api/v1.0/sign_complete_callback?ledgerId=ethdev';
const CUSTODY = '203.0.113.9';

const from = (forwardedFor: string) => ({ headers: { 'x-forwarded-for': forwardedFor } });

describe('TRUST_PROXY names the proxy in front (127.0.0.1 here)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(LEDGERS, { pipeline: true, env: { ...LIMITED, TRUST_PROXY: '127.0.0.1', CALLBACK_ALLOWED_IPS: CUSTODY } });
  });
  afterAll(() => svc.stop());

  it('two clients behind it get separate rate-limit buckets', async () => {
    expect((await svc.call('GET', BALANCE, from('198.51.100.1'))).status).toBe(503);
    expect((await svc.call('GET', BALANCE, from('198.51.100.1'))).status).toBe(429);
    // A spoofed left-most entry does not choose the bucket: the proxy appended the real address.
    expect((await svc.call('GET', BALANCE, from('198.51.100.2, 198.51.100.1'))).status).toBe(429);
    expect((await svc.call('GET', BALANCE, from('198.51.100.2'))).status).toBe(503);
  });

  it('the callback allow-list sees the forwarded address, in both lanes', async () => {
    for (const contentType of ['application/json', 'text/plain']) {
      const allowed = await svc.call('POST', CALLBACK, { rawBody: '{}', headers: { 'content-type': contentType, 'x-forwarded-for': CUSTODY } });
      // Past the allow-list: the HMAC the test service requires is missing.
      expect(allowed.status).toBe(401);
      const other = await svc.call('POST', CALLBACK, { rawBody: '{}', headers: { 'content-type': contentType, 'x-forwarded-for': '198.51.100.7' } });
      expect(other.status).toBe(403);
    }
  });
});

describe('without TRUST_PROXY', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(LEDGERS, { pipeline: true, env: { ...LIMITED, CALLBACK_ALLOWED_IPS: CUSTODY } });
  });
  afterAll(() => svc.stop());

  it('X-Forwarded-For is ignored: every client of the peer shares its bucket', async () => {
    expect((await svc.call('GET', BALANCE, from('198.51.100.1'))).status).toBe(503);
    expect((await svc.call('GET', BALANCE, from('198.51.100.2'))).status).toBe(429);
  });

  it('the callback allow-list sees the peer, whatever X-Forwarded-For says', async () => {
    for (const contentType of ['application/json', 'text/plain']) {
      const res = await svc.call('POST', CALLBACK, { rawBody: '{}', headers: { 'content-type': contentType, 'x-forwarded-for': CUSTODY } });
      expect(res.status).toBe(403);
    }
  });
});

describe('the TRUST_PROXY setting', () => {
  it('takes a hop count, addresses, ranges and names; refuses true and text that is none of them', async () => {
    const { trustProxySetting } = await import('../../src/config/address-schemas.js');
    const { proxyTrust } = await import('../../src/http/client-address.js');
    const parse = (text: string) => trustProxySetting().safeParse(text);
    expect(parse('false').data).toEqual({});
    expect(parse('2').data).toEqual({ hops: 2 });
    const list = parse('10.0.0.0/8, FD00::1, loopback').data;
    expect(list).toEqual({ addresses: ['10.0.0.0/8', 'fd00::1', 'loopback'] });
    const trust = proxyTrust(list ?? {});
    expect(['10.1.2.3', '::ffff:10.1.2.3', 'fd00::1', '127.0.0.1', '::1', '11.0.0.1', 'fd00::2'].map((a) => trust(a, 0))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    for (const bad of ['true', '10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/1']) expect(parse(bad).success).toBe(false);
  });
});
