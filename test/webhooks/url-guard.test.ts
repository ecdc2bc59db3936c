import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { sendWebhook } from '../../src/webhooks/send-webhook.js';
import { checkWebhookTarget, guardedLookup, nonPublicKind, type Resolver } from '../../src/webhooks/url-guard.js';
import { ADMIN_KEY, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver } from './support.js';

/** URL → the refusal it gets (a pattern of the reason), or 'pass'. Literals need no name resolution. */
const LITERALS: [string, RegExp | 'pass'][] = [
  ['http://[::127.0.0.1]/hook', /deprecated IPv4-compatible/],
  ['http://[::7f00:1]/hook', /deprecated IPv4-compatible/],
  ['http://[64:ff9b::7f00:1]/hook', /loopback \(127\.0\.0\.1 inside a NAT64 address\)/],
  ['http://[64:ff9b::a9fe:a9fe]/hook', /link-local .*NAT64/],
  ['http://[64:ff9b:1::a00:1]/hook', /local-use NAT64/],
  ['http://[fec0::1]/hook', /site-local/],
  ['http://[2002:7f00:1::]/hook', /loopback \(127\.0\.0\.1 inside a 6to4 address\)/],
  ['http://[2002:a00:1::1]/hook', /private .*6to4/],
  ['http://[2001:0:808:808::80ff:fffe]/hook', /loopback .*Teredo/],
  ['http://[::ffff:127.0.0.1]/hook', /loopback/],
  ['http://[::ffff:0:a00:1]/hook', /private/],
  ['http://[4000::1]/hook', /outside global unicast/],
  ['http://[2001:db8::1]/hook', /reserved/],
  ['http://[ff02::1]/hook', /multicast/],
  ['http://192.0.0.1/hook', /reserved/],
  ['http://198.18.0.1/hook', /reserved/],
  ['http://240.0.0.1/hook', /reserved/],
  ['http://255.255.255.255/hook', /reserved/],
  ['http://100.64.0.1/hook', /private/],
  ['http://2130706433/hook', /127\.0\.0\.1 is a loopback/],
  ['http://0177.0.0.1/hook', /127\.0\.0\.1 is a loopback/],
  ['http://0x7f.0.0.1/hook', /127\.0\.0\.1 is a loopback/],
  ['http://127.1/hook', /127\.0\.0\.1 is a loopback/],
  ['http://8.8.8.8/hook', 'pass'],
  ['http://[2606:4700::1111]/hook', 'pass'],
  ['http://[64:ff9b::808:808]/hook', 'pass'],
  ['http://[2002:808:808::1]/hook', 'pass'],
  ['http://[::ffff:8.8.8.8]/hook', 'pass'],
];

/** Resolved addresses of a name → verdict: every address of the answer is checked. */
const RESOLVED: [string[], RegExp | 'pass'][] = [
  [['64:ff9b::7f00:1'], /resolves to 64:ff9b::7f00:1, a loopback/],
  [['::7f00:1'], /deprecated IPv4-compatible/],
  [['fec0::1'], /site-local/],
  [['2002:7f00:1::'], /loopback .*6to4/],
  [['192.0.0.1'], /reserved/],
  [['8.8.8.8', '10.0.0.1'], /resolves to 10\.0\.0\.1, a private/],
  [['8.8.8.8', '2606:4700::1111'], 'pass'],
];

/** A resolver answering from a table, counting its calls. */
function fakeResolver(answers: () => string[]): Resolver & { calls: number } {
  const r = ((_host, _options, callback) => {
    r.calls++;
    const list: LookupAddress[] = answers().map((address) => ({ address, family: isIP(address) }));
    setImmediate(() => callback(null, list));
  }) as Resolver & { calls: number };
  r.calls = 0;
  return r;
}

/** What guardedLookup hands the connection: the address it checked, or the refusal. */
function connectTarget(resolver: Resolver, allowPrivate = false): Promise<string> {
  return new Promise((resolve, reject) => {
    guardedLookup(allowPrivate, resolver)('hook.example', { all: false }, (err, address) => (err ? reject(err) : resolve(address as string)));
  });
}

describe('webhook targets are judged by address class', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true });
  });
  afterAll(() => svc?.stop());

  it('at registration: each literal gets its verdict', async () => {
    for (const [url, verdict] of LITERALS) {
      const res = await svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url, events: ['*'] } });
      if (verdict === 'pass') {
        expect(res.status, url).toBe(201);
        expect((await svc.call('DELETE', `/api/v1.0/admin/webhooks/${res.body.id}`, { key: ADMIN_KEY })).status).toBe(204);
      } else {
        expect(res.status, url).toBe(422);
        expect(res.body.errCode).toBe('ERR_INVALID_ARGUMENTS');
        expect(res.body.details, url).toMatch(verdict);
        expect(res.body.details, url).toContain('WEBHOOK_ALLOW_PRIVATE=true allows others');
      }
    }
  });

  it('at registration: every resolved address of a name is judged', async () => {
    for (const [addresses, verdict] of RESOLVED) {
      const check = checkWebhookTarget(
        new URL('https://hook.example/x'),
        false,
        fakeResolver(() => addresses),
      );
      if (verdict === 'pass') await expect(check, addresses.join()).resolves.toBeUndefined();
      else await expect(check, addresses.join()).rejects.toThrow(verdict);
    }
  });

  it('at delivery: a refused literal is never connected to', async () => {
    for (const [url, verdict] of LITERALS) {
      if (verdict === 'pass') continue;
      await expect(sendWebhook(url, '{}', { secret: 's', eventId: 'e', timeoutMs: 500, allowPrivate: false }), url).rejects.toThrow(verdict);
    }
  });

  it('at delivery: the address connected to is the one checked, from a single resolution', async () => {
    for (const [addresses, verdict] of RESOLVED) {
      const resolver = fakeResolver(() => addresses);
      if (verdict === 'pass') await expect(connectTarget(resolver)).resolves.toBe(addresses[0]);
      else await expect(connectTarget(resolver), addresses.join()).rejects.toThrow(verdict);
      expect(resolver.calls).toBe(1);
    }
    // A rebinding name: public when the subscription was checked, loopback at delivery: refused at delivery.
    let n = 0;
    const rebinding = fakeResolver(() => (n++ === 0 ? ['8.8.8.8'] : ['64:ff9b::7f00:1']));
    await checkWebhookTarget(new URL('https://hook.example/x'), false, rebinding);
    const receiver = await startReceiver();
    const url = receiver.url.replace('127.0.0.1', 'hook.example');
    await expect(sendWebhook(url, '{}', { secret: 's', eventId: 'e', timeoutMs: 500, allowPrivate: false, resolver: rebinding })).rejects.toThrow(/NAT64/);
    // WEBHOOK_ALLOW_PRIVATE keeps its meaning: allowed, the connection goes to the resolved address.
    expect(await sendWebhook(url, '{}', { secret: 's', eventId: 'e', timeoutMs: 1000, allowPrivate: true, resolver: fakeResolver(() => ['127.0.0.1']) })).toBe(
      200,
    );
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  });

  it('classifies the embedded IPv4 of translation forms', () => {
    expect(nonPublicKind('::ffff:a9fe:a9fe')).toBe('link-local');
    expect(nonPublicKind('64:ff9b::808:808')).toBeUndefined();
    expect(nonPublicKind('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toMatch(/192\.0\.2\.45 inside a Teredo address/);
    expect(nonPublicKind('fe80::1%eth0')).toBe('link-local');
    expect(nonPublicKind('not-an-ip')).toBe('unrecognised');
  });
});
