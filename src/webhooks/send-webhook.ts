import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { signBody } from '../security/callback-hmac.js';
import { guardedLookup, nonPublicKind, type Resolver } from './url-guard.js';

export const WEBHOOK_TIMESTAMP_HEADER = 'x-webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'x-webhook-signature';
export const WEBHOOK_ID_HEADER = 'x-webhook-id';

/** An attempt that did not end in a 2xx: the receiver's status when it answered. */
export class DeliveryAttemptError extends Error {
  constructor(
    message: string,
    readonly responseStatus?: number,
  ) {
    super(message);
    this.name = 'DeliveryAttemptError';
  }
}

export interface SendOptions {
  secret: string;
  eventId: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Name resolution for the connection (the system's when absent). */
  resolver?: Resolver;
}

/**
 * POSTs one signed event. Resolves with the status of a 2xx answer; anything else (another
 * status, a refused address, no answer in time, a broken connection) rejects. Redirects are
 * not followed: the URL that was checked is the one called.
 */
export function sendWebhook(url: string, body: string, opts: SendOptions): Promise<number> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const kind = opts.allowPrivate || !isIP(host) ? undefined : nonPublicKind(host);
  if (kind) return Promise.reject(new DeliveryAttemptError(`${host} is a ${kind} address`));
  const { timestamp, signature } = signBody(opts.secret, body);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(opts.allowPrivate, opts.resolver),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'byow-webhooks/1',
          [WEBHOOK_ID_HEADER]: opts.eventId,
          [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
          [WEBHOOK_SIGNATURE_HEADER]: signature,
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          if (status >= 200 && status < 300) resolve(status);
          else reject(new DeliveryAttemptError(`the receiver answered ${status}`, status));
        });
        res.on('error', (e) => reject(new DeliveryAttemptError(`the answer broke off: ${e.message}`, status)));
      },
    );
    // One limit for the whole exchange: a receiver that trickles its answer is cut off too.
    const timer = setTimeout(() => req.destroy(new DeliveryAttemptError(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e instanceof DeliveryAttemptError ? e : new DeliveryAttemptError(e.message));
    });
    req.end(body);
  });
}
