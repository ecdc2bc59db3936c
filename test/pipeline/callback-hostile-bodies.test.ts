import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { freePort } from '../../src/dev/free-port.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { awaitingSignature, callbackBody } from '../helpers/one-signature.js';
import { startTestService, TEST_CALLBACK_SECRET, type TestService } from '../helpers/service.js';

/**
 * Malformed and hostile callback bodies and ledger ids: each is refused with a 4xx in the
 * spec's error shape, never a 500, and the service goes on answering.
 */
describe('hostile callback bodies', () => {
  let svc: TestService;
  const post = (body: unknown, ledgerId = 'ethdev') => {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    return svc.call('POST', `/api/v1.0/sign_complete_callback?ledgerId=${ledgerId}`, { rawBody: raw, headers: signCallback(TEST_CALLBACK_SECRET, raw) });
  };
  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true });
  });
  afterAll(() => svc?.stop());

  it('answers 4xx to each, then takes the genuine callback', async () => {
    const digest = randomBytes(32);
    const op = awaitingSignature(digest.toString('hex'), 'malformed');
    await new OperationStore(svc.core.redis, svc.core.prefix).create(op);
    const good = callbackBody(digest);
    const bodies: [string, unknown, string?][] = [
      ['null entries', { ...good, signatures: [null] }],
      ['v as hex string', { ...good, v: ['0x1b'] }],
      ['v huge', { ...good, v: [1e300] }],
      ['v fraction', { ...good, v: [0.5] }],
      ['v negative', { ...good, v: [-1] }],
      ['odd hex sig', { ...good, signatures: [good.signatures[0]!.slice(1)] }],
      ['0x-only sig', { ...good, signatures: ['0x'] }],
      ['0x-only digest', { ...good, dataToSign: ['0x'] }],
      ['odd digest', { ...good, dataToSign: [good.dataToSign[0]!.slice(1)] }],
      ['uppercase 0X', { ...good, dataToSign: ['0X' + good.dataToSign[0]] }],
      ['wrong types', { ...good, publicKeys: 'abc' }],
      ['pk number', { ...good, publicKeys: [5] }],
      ['pk empty string', { ...good, publicKeys: [''] }],
      ['pk junk', { ...good, publicKeys: ['zz'] }],
      ['pk 30 junk', { ...good, publicKeys: ['30' + '00'.repeat(87)] }],
      ['pk not on curve', { ...good, publicKeys: ['02' + 'ff'.repeat(32)] }],
      ['providerData object', { ...good, providerData: {} }],
      ['originalEntryIds huge', { ...good, originalEntryIds: [2 ** 53] }],
      ['originalEntryIds negative', { ...good, originalEntryIds: [-1] }],
      ['many digests', { ...good, dataToSign: Array.from({ length: 50_000 }, () => '00') }],
      ['many digests incl. the real one', { ...good, dataToSign: [good.dataToSign[0], ...Array.from({ length: 20_000 }, (_, i) => i.toString(16).padStart(2, '0'))] }],
      ['many signatures', { ...good, signatures: Array.from({ length: 20_000 }, () => good.signatures[0]), v: Array.from({ length: 20_000 }, () => 0) }],
      ['empty sigs, many digests', { ...good, signatures: [], v: [], dataToSign: Array.from({ length: 20_000 }, () => 'ab') }],
      ['body array', [good]],
      ['body string', '"x"'],
      ['body number', '5'],
      ['body null', 'null'],
      ['__proto__', '{"__proto__": {"x": 1}, "publicKeys": ["a"]}'],
      ['empty signatures, v absent, op unknown', { publicKeys: ['a'], providerData: '', dataToSign: ['ab'], signatures: [] }],
      ['deep nesting', '['.repeat(5000) + ']'.repeat(5000)],
    ];
    const statuses: Record<string, number> = {};
    for (const [name, body] of bodies) {
      const r = await post(body);
      statuses[name] = r.status;
    }
    for (const ledgerId of ['nope', '%00', 'a'.repeat(65), 'constructor', '__proto__']) {
      statuses[`ledger ${ledgerId.slice(0, 10)}`] = (await post(good, ledgerId)).status;
    }
    expect(Object.entries(statuses).filter(([, s]) => s < 400 || s >= 500)).toEqual([]);
    // The genuine callback still goes through afterwards.
    const r = await post(good);
    expect([r.status, r.body.outcome]).toEqual([200, 'queued']);
  });
});
