import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { freePort } from '../../src/dev/free-port.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { awaitingSignature, callbackBody } from '../helpers/one-signature.js';
import { startTestService, TEST_CALLBACK_SECRET, type TestService } from '../helpers/service.js';

/**
 * Malformed and hostile callback bodies and ledger ids: each is refused with its own status,
 * errCode and reason in the spec's error shape, never a 500, and the service goes on answering.
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

  it('answers each with its exact status, errCode and reason, then takes the genuine callback', async () => {
    const digest = randomBytes(32);
    const op = awaitingSignature(digest.toString('hex'), 'malformed');
    await new OperationStore(svc.core.redis, svc.core.prefix).create(op);
    const good = callbackBody(digest);
    // Each refusal as [status, errCode, reason]: the schema's 422, the strict JSON reader's 400,
    // or the content check's 400/404 ERR_VERIFICATION_FAILED with its reason.
    const schema = [422, 'ERR_INVALID_ARGUMENTS', undefined];
    const notJson = [400, 'ERR_MALFORMED_JSON', undefined];
    const verification = (reason: string, status = 400) => [status, 'ERR_VERIFICATION_FAILED', reason];
    const unknown = verification('unknown-operation', 404);
    const bodies: [string, unknown, unknown[]][] = [
      ['null entries', { ...good, signatures: [null] }, schema],
      ['v as hex string', { ...good, v: ['0x1b'] }, schema],
      ['v huge', { ...good, v: [1e300] }, schema],
      ['v fraction', { ...good, v: [0.5] }, schema],
      ['v negative', { ...good, v: [-1] }, verification('malformed-v')],
      ['odd hex sig', { ...good, signatures: [good.signatures[0]!.slice(1)] }, verification('malformed-signature')],
      ['0x-only sig', { ...good, signatures: ['0x'] }, schema],
      ['0x-only digest', { ...good, dataToSign: ['0x'] }, schema],
      // Hex of odd length passes the schema and matches no stored digest.
      ['odd digest', { ...good, dataToSign: [good.dataToSign[0]!.slice(1)] }, unknown],
      ['uppercase 0X', { ...good, dataToSign: ['0X' + good.dataToSign[0]] }, schema],
      ['wrong types', { ...good, publicKeys: 'abc' }, schema],
      ['pk number', { ...good, publicKeys: [5] }, schema],
      ['pk empty string', { ...good, publicKeys: [''] }, verification('key-mismatch')],
      ['pk junk', { ...good, publicKeys: ['zz'] }, verification('key-mismatch')],
      ['pk 30 junk', { ...good, publicKeys: ['30' + '00'.repeat(87)] }, verification('key-mismatch')],
      ['pk not on curve', { ...good, publicKeys: ['02' + 'ff'.repeat(32)] }, verification('key-mismatch')],
      ['providerData object', { ...good, providerData: {} }, schema],
      ['originalEntryIds huge', { ...good, originalEntryIds: [2 ** 53] }, schema],
      ['originalEntryIds negative', { ...good, originalEntryIds: [-1] }, schema],
      ['many digests', { ...good, dataToSign: Array.from({ length: 50_000 }, () => '00') }, unknown],
      [
        'many digests incl. the real one',
        { ...good, dataToSign: [good.dataToSign[0], ...Array.from({ length: 20_000 }, (_, i) => i.toString(16).padStart(2, '0'))] },
        unknown,
      ],
      // More signatures than the operation has payloads.
      // 20,000 signatures weigh about 2.7 MB: over CALLBACK_BODY_LIMIT (2 MB), refused before it is parsed.
      [
        'many signatures',
        { ...good, signatures: Array.from({ length: 20_000 }, () => good.signatures[0]), v: Array.from({ length: 20_000 }, () => 0) },
        [413, 'ERR_PAYLOAD_TOO_LARGE', undefined],
      ],
      [
        'more signatures than payloads',
        { ...good, signatures: Array.from({ length: 2_000 }, () => good.signatures[0]), v: Array.from({ length: 2_000 }, () => 0) },
        verification('malformed'),
      ],
      ['empty sigs, many digests', { ...good, signatures: [], v: [], dataToSign: Array.from({ length: 20_000 }, () => 'ab') }, unknown],
      ['body array', [good], schema],
      // Strict JSON, as body-parser's: the top level is an object or an array.
      ['body string', '"x"', notJson],
      ['body number', '5', notJson],
      ['body null', 'null', notJson],
      ['__proto__', '{"__proto__": {"x": 1}, "publicKeys": ["a"]}', schema],
      ['empty signatures, v absent, op unknown', { publicKeys: ['a'], providerData: '', dataToSign: ['ab'], signatures: [] }, unknown],
      ['deep nesting', '['.repeat(5000) + ']'.repeat(5000), schema],
    ];
    const ledgers: [string, unknown[]][] = [
      ['nope', verification('ledger-mismatch')],
      ['%00', verification('ledger-mismatch')],
      ['a'.repeat(65), schema],
      ['constructor', verification('ledger-mismatch')],
      ['__proto__', verification('ledger-mismatch')],
    ];
    // Rows of [name, status, errCode, reason], compared at once so a failure shows every wrong row.
    const answers: unknown[][] = [];
    const expected: unknown[][] = [];
    const record = (name: string, r: { status: number; body: any }, want: unknown[]) => {
      answers.push([name, r.status, r.body.errCode, r.body.reason]);
      expected.push([name, ...want]);
      // Every refusal in the AppError shape.
      expect(r.body, name).toMatchObject({ title: expect.any(String), details: expect.any(String), type: expect.stringMatching(/^\/api\/v1\.0\/errors\//) });
    };
    for (const [name, body, want] of bodies) record(name, await post(body), want);
    for (const [ledgerId, want] of ledgers) record(`ledger ${ledgerId.slice(0, 10)}`, await post(good, ledgerId), want);
    expect(answers).toHaveLength(36);
    expect(answers).toEqual(expected);
    // The genuine callback still goes through afterwards.
    const r = await post(good);
    expect([r.status, r.body.outcome]).toEqual([200, 'queued']);
  });
});
