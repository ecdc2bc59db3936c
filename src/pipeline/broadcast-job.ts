import { UnrecoverableError } from 'bullmq';
import { AppError } from '../errors.js';
import type { VerifiedSignature } from '../ledger/adaptor.js';
import type { Operation } from './operation.js';
import { fromStored, type PipelineDeps } from './pipeline-deps.js';
import { confirmJobId } from './queues.js';
import { failOperation } from './fail-operation.js';

/** Errors worth another attempt: back ends down, timeouts, anything not known to be final. */
export function isRetryable(e: unknown): boolean {
  return e instanceof AppError ? e.retryable : true;
}

/**
 * Assembles and broadcasts one signed withdrawal. Idempotent: it reloads the operation,
 * records the txids before anything is sent, treats "already known" as success, and
 * does nothing for an operation that has moved on.
 */
export async function processBroadcast(deps: PipelineDeps, operationId: string): Promise<string> {
  let op: Operation = await deps.store.get(operationId);
  if (op.status === 'CONFIRMED' || op.status === 'FAILED') return `already ${op.status}`;
  if (op.status === 'BROADCAST') {
    await scheduleConfirm(deps, op.id);
    return 'already broadcast';
  }
  const sigs = await deps.store.signatures(op.id);
  const payloads = op.unsigned.payloads;
  if (sigs.size < payloads.length) return `waiting for signatures (${sigs.size}/${payloads.length})`;
  const adaptor = deps.registry.get(op.ledgerId);
  const unsigned = fromStored(op.unsigned);
  const verified: VerifiedSignature[] = payloads.map((_, i) => {
    const s = sigs.get(i) as { signature: string; recoveryId: 0 | 1 };
    return { payloadIndex: i, signature: Uint8Array.from(Buffer.from(s.signature, 'hex')), recoveryId: s.recoveryId };
  });
  let signed;
  try {
    signed = adaptor.combine(unsigned, verified);
  } catch (e) {
    await failOperation(deps, op, `could not assemble the signed transaction: ${(e as Error).message}`);
    throw new UnrecoverableError((e as Error).message);
  }
  const txids = signed.map((t) => t.txid);
  // The signed bytes are kept: a node that drops the transaction gets them again, unsigned by nobody new.
  const signedTxs = signed.map((t) => t.serialized);
  if (op.status === 'EXECUTING') {
    op = (await deps.store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids, signedTxs, broadcastAttempted: true }))) ?? (await deps.store.get(op.id));
  }
  if (op.status !== 'SIGNED') return `moved to ${op.status} meanwhile`;
  if (!op.broadcastAttempted || op.txids.join() !== txids.join() || !op.signedTxs) {
    op = await deps.store.update(op.id, (o) => ({ ...o, txids, signedTxs, broadcastAttempted: true }));
  }
  for (const tx of signed) {
    try {
      const r = await adaptor.broadcast(tx);
      deps.logger.info({ operationId: op.id, txid: r.txid, alreadyKnown: r.alreadyKnown, ledgerId: op.ledgerId }, 'broadcast');
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: r.alreadyKnown ? 'already_known' : 'sent' });
    } catch (e) {
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: isRetryable(e) ? 'retryable_error' : 'rejected' });
      if (isRetryable(e)) throw e;
      await failOperation(deps, op, `rejected by the ledger: ${(e as Error).message}`);
      throw new UnrecoverableError((e as Error).message);
    }
  }
  await deps.store.transition(op.id, ['SIGNED'], 'BROADCAST');
  await scheduleConfirm(deps, op.id);
  return 'broadcast';
}

export async function scheduleConfirm(deps: PipelineDeps, operationId: string): Promise<void> {
  await deps.queues.confirm.add('confirm', { operationId }, { jobId: confirmJobId(operationId), delay: deps.config.confirmPollMs });
}
