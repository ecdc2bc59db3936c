import { UnrecoverableError } from 'bullmq';
import { AppError } from '../errors.js';
import type { VerifiedSignature } from '../ledger/adaptor.js';
import type { Operation } from './operation.js';
import { fromStored, type PipelineDeps } from './pipeline-deps.js';
import { addConfirmJob } from './queues.js';
import { failOperation } from './fail-operation.js';
import { noJournal, type JobJournal } from './job-journal.js';

/** Errors worth another attempt: back ends down, timeouts, anything not known to be final. */
export function isRetryable(e: unknown): boolean {
  return e instanceof AppError ? e.retryable : true;
}

/**
 * Assembles and broadcasts one signed withdrawal. Idempotent: it reloads the operation,
 * records the txids before anything is sent, treats "already known" as success, and
 * does nothing for an operation that has moved on.
 */
export async function processBroadcast(deps: PipelineDeps, operationId: string, journal: JobJournal = noJournal): Promise<string> {
  let op: Operation = await deps.store.get(operationId);
  if (op.status === 'CONFIRMED' || op.status === 'FAILED') return `already ${op.status}`;
  if (op.status === 'BROADCAST') {
    await scheduleConfirm(deps, op);
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
    await journal.log(`FAILED: could not assemble the signed transaction: ${(e as Error).message}`);
    throw new UnrecoverableError((e as Error).message);
  }
  const txids = signed.map((t) => t.txid);
  await journal.log(`assembled ${signed.length} signed transaction(s) from ${payloads.length} signature(s); txid ${txids.join(', ')}`);
  if (op.status === 'EXECUTING') {
    op = (await deps.store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids, broadcastAttempted: true }))) ?? (await deps.store.get(op.id));
  }
  if (op.status !== 'SIGNED') return `moved to ${op.status} meanwhile`;
  if (!op.broadcastAttempted || op.txids.join() !== txids.join()) {
    op = await deps.store.update(op.id, (o) => ({ ...o, txids, broadcastAttempted: true }));
  }
  for (const tx of signed) {
    try {
      const r = await adaptor.broadcast(tx);
      deps.logger.info({ operationId: op.id, txid: r.txid, alreadyKnown: r.alreadyKnown, ledgerId: op.ledgerId }, 'broadcast');
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: r.alreadyKnown ? 'already_known' : 'sent' });
      await journal.log(`sent ${r.txid}; the node answered: ${r.alreadyKnown ? 'already known' : 'accepted'}`);
    } catch (e) {
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: isRetryable(e) ? 'retryable_error' : 'rejected' });
      await journal.log(`sent ${tx.txid}; the node answered: ${(e as Error).message} (${isRetryable(e) ? 'retrying' : 'final'})`);
      if (isRetryable(e)) throw e;
      await failOperation(deps, op, `rejected by the ledger: ${(e as Error).message}`);
      throw new UnrecoverableError((e as Error).message);
    }
  }
  op = (await deps.store.transition(op.id, ['SIGNED'], 'BROADCAST')) ?? op;
  await scheduleConfirm(deps, op);
  return 'broadcast';
}

export async function scheduleConfirm(deps: PipelineDeps, op: Operation): Promise<void> {
  await addConfirmJob(deps.queues, op, deps.config.confirmPollMs);
}
