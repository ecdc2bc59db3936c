import { setTimeout as sleep } from 'node:timers/promises';
import { callbackUrl, postWithRetry } from '../custody-simulator/callback-sender.js';
import { callbackBodies, type CallbackBody, type SentCallbackBody } from '../custody-simulator/faults.js';
import type { EmulatorContext } from './context.js';
import { faultsFor } from './faults.js';
import type { Operation, Vault } from './model.js';

/** Where an operation's callback goes: its own `callbackUrl`, else the configured base; undefined when neither. */
export function destination(ctx: EmulatorContext, op: Operation): string | undefined {
  const s = op.sign;
  if (!s) return undefined;
  return callbackUrl(s.callbackUrl, ctx.callback.baseUrl, s.ledger ?? '');
}

/** The simulator's delivery loop, with the emulator's settings: no HMAC unless a secret is configured. */
function post(ctx: EmulatorContext, url: string, body: SentCallbackBody, operationID: string): Promise<boolean> {
  const { attempts, baseDelayMs, timeoutMs, secret, fetch } = ctx.callback;
  return postWithRetry(url, body, { attempts, baseDelayMs, timeoutMs, fetch, ...(secret ? { secret } : {}), signal: ctx.background.signal, logger: ctx.logger.child({ operationID }) });
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
  ctx.logger.info({ operationID: op.operationID, ...outcome }, 'callback delivery finished');
}
