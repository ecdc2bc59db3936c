import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { signCallback } from '../../security/callback-hmac.js';
import type { Faults, SentCallbackBody } from './faults.js';

export interface DeliveryOptions {
  /** With a secret, callbacks carry the HMAC headers; without, none (as the real service sends them). */
  secret?: string;
  fetch: typeof fetch;
  logger: Logger;
  /** Tries per POST, like the real service's resend loop. */
  attempts: number;
  /** First wait between tries; doubles each time. */
  baseDelayMs: number;
  timeoutMs: number;
  /** Aborted when the simulator closes, so no callback outlives it. */
  signal: AbortSignal;
}

export interface DeliveryOutcome {
  /** POSTs that got a 2xx. */
  delivered: number;
  /** POSTs that never got a 2xx after every try. */
  failed: number;
  dropped: boolean;
}

/** The callback URL: the sign request's own, else the configured base's standard path. */
export function callbackUrl(requested: string | undefined, base: string | undefined, ledger: string): string | undefined {
  const target = requested ?? base;
  if (!target) return undefined;
  const url = new URL(
    target.includes('sign_complete_callback') ? target : `${target.replace(/\/+$/, '')}/api/v1.0/sign_complete_callback`,
  );
  url.searchParams.set('ledgerId', ledger.toLowerCase());
  return url.toString();
}

/** POSTs one callback body, retrying with doubling waits; true once the receiver answered 2xx. */
export async function postWithRetry(url: string, body: SentCallbackBody, opts: DeliveryOptions): Promise<boolean> {
  const raw = JSON.stringify(body);
  for (let attempt = 1; attempt <= opts.attempts; attempt++) {
    if (opts.signal.aborted) return false;
    let outcome: string;
    try {
      // Headers are recomputed per try: the timestamp inside the MAC must be fresh.
      const res = await opts.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.secret ? signCallback(opts.secret, raw) : {}) },
        body: raw,
        signal: AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return true;
      outcome = `HTTP ${res.status}`;
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      outcome = err.cause?.code ?? err.message;
    }
    opts.logger.warn({ attempt, attempts: opts.attempts, outcome }, 'callback not accepted');
    if (attempt < opts.attempts) {
      const ok = await sleep(opts.baseDelayMs * 2 ** (attempt - 1), true, { signal: opts.signal }).catch(() => false);
      if (!ok) return false;
    }
  }
  return false;
}

/** Sends one completed operation's callback(s), shaped by the delivery faults. */
export async function deliver(
  url: string,
  bodies: SentCallbackBody[],
  faults: Faults,
  opts: DeliveryOptions,
): Promise<DeliveryOutcome> {
  if (faults.dropCallback) {
    opts.logger.info('callback dropped (fault injection)');
    return { delivered: 0, failed: 0, dropped: true };
  }
  if (faults.delayMs) {
    const waited = await sleep(faults.delayMs, true, { signal: opts.signal }).catch(() => false);
    if (!waited) return { delivered: 0, failed: bodies.length, dropped: false };
  }
  const copies = faults.duplicate ?? 1;
  const outcome: DeliveryOutcome = { delivered: 0, failed: 0, dropped: false };
  // Partial halves go one after the other, as separate POSTs; duplicates race each other.
  for (const body of bodies) {
    const results = await Promise.all(Array.from({ length: copies }, () => postWithRetry(url, body, opts)));
    for (const ok of results) outcome[ok ? 'delivered' : 'failed']++;
  }
  opts.logger.info({ delivered: outcome.delivered, failed: outcome.failed }, 'callback delivery finished');
  return outcome;
}
