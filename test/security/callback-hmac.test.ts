import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkCallback, SIGNATURE_HEADER, signBody, signCallback, TIMESTAMP_HEADER, timestampedMac } from '../../src/security/callback-hmac.js';

const SECRET = 'callback-secret-0123456789';
const BODY = Buffer.from('{"operationID":"op-1"}');
const NOW_MS = 1_800_000_000_500;
const TOLERANCE = 300;

/** The documented MAC, computed here independently: HMAC-SHA256(secret, "<timestamp>.<body>"). */
const mac = (secret: string, timestamp: string, body: Buffer) =>
  createHmac('sha256', secret)
    .update(`${timestamp}.${body.toString('latin1')}`, 'latin1')
    .digest('hex');

/** The headers' check with the test's clock; `ts` and `sig` are the header values. */
const check = (ts: string | undefined, sig: string | undefined, body = BODY, nowMs = NOW_MS) => checkCallback(SECRET, body, ts, sig, TOLERANCE, nowMs);

/** The callback's authentication (signing callbacks and webhook deliveries share it), as documented in docs/signing-callback.md. */
describe('the callback HMAC', () => {
  it('signs "<unix seconds>.<body>" with HMAC-SHA256 and says so as sha256=<64 hex>', () => {
    const { timestamp, signature } = signBody(SECRET, BODY, NOW_MS);
    expect(timestamp).toBe('1800000000');
    expect(signature).toBe(`sha256=${mac(SECRET, '1800000000', BODY)}`);
    expect(timestampedMac(SECRET, timestamp, BODY).toString('hex')).toBe(mac(SECRET, '1800000000', BODY));
    // A string body is the same bytes.
    expect(signBody(SECRET, BODY.toString(), NOW_MS)).toEqual({ timestamp, signature });
    expect(signCallback(SECRET, BODY, NOW_MS)).toEqual({ [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature });
    expect([TIMESTAMP_HEADER, SIGNATURE_HEADER]).toEqual(['x-callback-timestamp', 'x-callback-signature']);
  });

  it('takes the seconds of the clock, rounded down', () => {
    expect(signBody(SECRET, BODY, 1_800_000_000_999).timestamp).toBe('1800000000');
    expect(signBody(SECRET, BODY, 1_800_000_001_000).timestamp).toBe('1800000001');
  });

  it('accepts its own signature, and an upper-case hex one', () => {
    const { timestamp, signature } = signBody(SECRET, BODY, NOW_MS);
    expect(check(timestamp, signature)).toBeUndefined();
    expect(check(timestamp, `sha256=${signature.slice(7).toUpperCase()}`)).toBeUndefined();
  });

  it('refuses a request without both headers, or with a timestamp that is no plain count of seconds', () => {
    const { timestamp, signature } = signBody(SECRET, BODY, NOW_MS);
    expect(check(undefined, signature)).toBe('missing-headers');
    expect(check(timestamp, undefined)).toBe('missing-headers');
    expect(check('', signature)).toBe('missing-headers');
    expect(check(timestamp, '')).toBe('missing-headers');
    for (const ts of [
      `${timestamp}.5`,
      `-${timestamp}`,
      `+${timestamp}`,
      ` ${timestamp}`,
      `${timestamp} `,
      `x${timestamp}`,
      `${timestamp}x`,
      '1e9',
      '1234567890123',
    ]) {
      expect(check(ts, signature), ts).toBe('missing-headers');
    }
  });

  it('refuses a timestamp more than the tolerance away from the clock, either way, and accepts one at the edge', () => {
    const at = (seconds: number) => {
      const ts = String(seconds);
      return check(ts, `sha256=${mac(SECRET, ts, BODY)}`);
    };
    const now = NOW_MS / 1000;
    expect(at(Math.ceil(now - TOLERANCE))).toBeUndefined();
    expect(at(Math.floor(now + TOLERANCE))).toBeUndefined();
    expect(at(Math.floor(now - TOLERANCE))).toBe('stale-timestamp');
    expect(at(Math.ceil(now + TOLERANCE))).toBe('stale-timestamp');
    expect(at(0)).toBe('stale-timestamp');
    // The whole-second edge exactly: 300 s old at a clock on the second is still fresh.
    const ts = '1800000000';
    expect(checkCallback(SECRET, BODY, ts, `sha256=${mac(SECRET, ts, BODY)}`, TOLERANCE, (1_800_000_000 + TOLERANCE) * 1000)).toBeUndefined();
    expect(checkCallback(SECRET, BODY, ts, `sha256=${mac(SECRET, ts, BODY)}`, TOLERANCE, (1_800_000_000 - TOLERANCE) * 1000)).toBeUndefined();
    expect(checkCallback(SECRET, BODY, ts, `sha256=${mac(SECRET, ts, BODY)}`, TOLERANCE, (1_800_000_000 + TOLERANCE) * 1000 + 1)).toBe('stale-timestamp');
  });

  it('refuses a signature not in the documented form exactly', () => {
    const { timestamp, signature } = signBody(SECRET, BODY, NOW_MS);
    const hex = signature.slice(7);
    for (const sig of [
      hex,
      `sha1=${hex}`,
      `SHA256=${hex}`,
      `sha256=${hex}0`,
      `sha256=${hex.slice(1)}`,
      ` ${signature}`,
      `${signature} `,
      `x${signature}`,
      `${signature}x`,
      `sha256=${'g'.repeat(64)}`,
    ]) {
      expect(check(timestamp, sig), sig).toBe('malformed-signature');
    }
  });

  it('refuses a MAC of another body, timestamp or secret', () => {
    const { timestamp, signature } = signBody(SECRET, BODY, NOW_MS);
    expect(check(timestamp, signature, Buffer.from(`${BODY.toString()} `))).toBe('bad-hmac');
    const earlier = String(Number(timestamp) - 1);
    expect(check(earlier, signature)).toBe('bad-hmac');
    expect(check(timestamp, signBody('another-secret', BODY, NOW_MS).signature)).toBe('bad-hmac');
    // The MAC covers the timestamp and the body apart: moving the dot does not keep it valid.
    expect(check(timestamp, `sha256=${mac(SECRET, '', Buffer.from(`${timestamp}.${BODY.toString()}`))}`)).toBe('bad-hmac');
  });
});
