import { setTimeout as sleep } from 'node:timers/promises';
import { signCallback } from '../../security/callback-hmac.js';
import type { EmulatorContext } from './context.js';
import { callbackBodies, faultsFor, type CallbackBody, type SentCallbackBody } from './faults.js';
import type { Operation, Vault } from './model.js';

/** The callback URL: the sign request's own, else the configured base's standard path. */
export function callbackUrl(requested: string | undefined, base: string | undefined, ledger: string): string | undefined {
  const target = requested ?? base;
  if (!target) return undefined;
  const url = new URL(target.includes('sign_complete_callback') ? target : `${target.replace(/\/+$/, '')}/api/v1.0/sign_complete_callback`);
  url.searchParams.set('ledgerId', ledger.toLowerCase());
  return url.toString();
}

/** Where an operation's callback goes: its own `callbackUrl`, else the configured base; undefined when neither. */
export function destination(ctx: EmulatorContext, op: Operation): string | undefined {
  const s = op.sign;
  if (!s) return undefined;
  return callbackUrl(s.callbackUrl, ctx.callback.baseUrl, s.ledger ?? '');
}

/**
 * POSTs one callback body, retrying with doubling waits like the real service's resend loop;
 * true once the receiver answered 2xx. No HMAC headers unless a secret is configured.
 */
async function post(ctx: EmulatorContext, url: string, body: SentCallbackBody, operationID: string): Promise<boolean> {
  const { attempts, baseDelayMs, timeoutMs, secret, fetch } = ctx.callback;
  const signal = ctx.background.signal;
  const logger = ctx.logger.child({ operationID });
  const raw = JSON.stringify(body);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (signal.aborted) return false;
    let outcome: string;
    try {
      // Headers are recomputed per try: the timestamp inside the MAC must be fresh.
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? signCallback(secret, raw) : {}) },
        body: raw,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      await res.text().catch(() => undefined);
      if (res.ok) return true;
      outcome = `HTTP ${res.status}`;
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      outcome = err.cause?.code ?? err.message;
    }
    logger.warn({ attempt, attempts, outcome }, 'callback not accepted');
    if (attempt < attempts) {
      const ok = await sleep(baseDelayMs * 2 ** (attempt - 1), true, { signal }).catch(() => false);
      if (!ok) return false;
    }
  }
  return false;
}

/**
 * Sends `sign_complete_callback` for a completed sign operation, shaped by the delivery
 * faults in force now (so a resend after clearing `dropCallback` goes through), and records
 * the outcome on the operation.
 */
export async function sendCallback(ctx: EmulatorContext, op: Operation, vault: Vault): Promise<void> {
  const url = destination(ctx, op);
  const s = op.sign;
  if (!url || !s) {
    ctx.logger.warn({ operationID: op.operationID }, 'no callback destination; operation completed without callback');
    return;
  }
  const faults = await faultsFor(ctx, vault.id);
  const outcome = { delivered: 0, failed: 0, dropped: 0 };
  if (faults.dropCallback) {
    outcome.dropped = 1;
    ctx.logger.info({ operationID: op.operationID }, 'callback dropped (fault injection)');
  } else {
    if (faults.delayMs && !(await sleep(faults.delayMs, true, { signal: ctx.background.signal }).catch(() => false))) return;
    const body: CallbackBody = { publicKeys: s.publicKeys, providerData: s.providerData, dataToSign: s.dataToSign, signatures: s.signatures, v: s.v };
    // Partial halves go one after the other; duplicates race each other.
    for (const part of callbackBodies(body, vault.cryptoKind, faults)) {
      const results = await Promise.all(Array.from({ length: faults.duplicate ?? 1 }, () => post(ctx, url, part, op.operationID)));
      for (const ok of results) outcome[ok ? 'delivered' : 'failed']++;
    }
  }
  await ctx.store.exclusive(async () => {
    const current = await ctx.store.get<Operation>('operation', op.operationID);
    if (!current) return;
    const d = current.deliveries;
    await ctx.store.put('operation', op.operationID, {
      ...current,
      deliveries: { delivered: d.delivered + outcome.delivered, failed: d.failed + outcome.failed, dropped: d.dropped + outcome.dropped },
    });
  });
  ctx.onDelivery?.(op.operationID, { delivered: outcome.delivered, failed: outcome.failed, dropped: outcome.dropped > 0 });
  ctx.logger.info({ operationID: op.operationID, ...outcome }, 'callback delivery finished');
}
