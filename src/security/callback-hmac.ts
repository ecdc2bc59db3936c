import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Authentication of the signing callback: `X-Callback-Timestamp` (unix seconds) and
 * `X-Callback-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`.
 * The timestamp is inside the MAC, so a captured request cannot be replayed after the
 * tolerance window; the receiver's content checks make a replay inside it harmless.
 */
export const TIMESTAMP_HEADER = 'x-callback-timestamp';
export const SIGNATURE_HEADER = 'x-callback-signature';

/** HMAC-SHA256(secret, "<timestamp>.<body>"): the one MAC of signing callbacks and webhook deliveries. */
export function timestampedMac(secret: string, timestamp: string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

/** The timestamp (unix seconds) and `sha256=<hex>` signature of a body sent now. */
export function signBody(secret: string, body: string | Uint8Array, nowMs = Date.now()): { timestamp: string; signature: string } {
  const timestamp = String(Math.floor(nowMs / 1000));
  return { timestamp, signature: `sha256=${timestampedMac(secret, timestamp, body).toString('hex')}` };
}

export function signCallback(secret: string, body: string | Uint8Array, nowMs = Date.now()): Record<string, string> {
  const { timestamp, signature } = signBody(secret, body, nowMs);
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature };
}

export type CallbackAuthFailure = 'missing-headers' | 'stale-timestamp' | 'malformed-signature' | 'bad-hmac';

/** The documented form, exactly: the `sha256=` prefix and 64 hex digits, nothing else. */
const SIGNATURE_FORM = /^sha256=([0-9a-fA-F]{64})$/;

/** Returns undefined when the headers authenticate `rawBody`, else why not. */
export function checkCallback(
  secret: string,
  rawBody: Uint8Array,
  timestamp: string | undefined,
  signature: string | undefined,
  toleranceSeconds: number,
  nowMs = Date.now(),
): CallbackAuthFailure | undefined {
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return 'missing-headers';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) return 'stale-timestamp';
  const form = SIGNATURE_FORM.exec(signature);
  if (!form) return 'malformed-signature';
  const expected = timestampedMac(secret, timestamp, rawBody);
  const given = Buffer.from(form[1] as string, 'hex');
  if (!timingSafeEqual(given, expected)) return 'bad-hmac';
  return undefined;
}
