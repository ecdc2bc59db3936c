import { UnrecoverableError } from 'bullmq';
import { AppError, isRetryable, NodeRejectionError, provesNeverLands } from '../../platform/errors.js';
import type { VerifiedSignature } from '../../ledger/adaptor.js';
import { sendInOrder, type OwnOutcome } from '../sending/account-sender.js';
import { fromStored, type Operation } from '../model/operation.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { addConfirmJob } from './queues.js';
import { PredecessorPending } from '../sending/send-order.js';
import { sendSigned, sentLine, storedSigned } from '../sending/send-signed.js';
import { failOperation } from '../fail-operation.js';
import { holdRefused } from '../hold-refused.js';
import { noJournal, type JobJournal } from './job-journal.js';

/**
 * Assembles and broadcasts one signed withdrawal. Idempotent: it reloads the operation,
 * records the txids and signed bytes before anything is sent (later runs send those bytes),
 * treats "already known" as success, and does nothing for an operation that has moved on.
 * On ledgers with an account order the transaction goes out through the account's sender
 * (account-sender.ts): a job that waits for its predecessor or for another job sending the
 * account's transactions throws PredecessorPending or SenderBusy, which the worker turns into
 * a delay. A refusal ends the withdrawal FAILED (with the node's words, if still SIGNED) only when
 * it proves the transaction can never land (its own bytes invalid for good); any other refusal
 * holds it open (hold-refused.ts): signed bytes that may still land are never called a failure.
 */
export async function processBroadcast(
  deps: PipelineDeps,
  withdrawalId: string,
  journal: JobJournal = noJournal,
  opts: { waits?: number; jobId?: string } = {},
): Promise<string> {
  const { op: found, signatures: sigs } = await deps.store.withSignatures(withdrawalId);
  let op: Operation = found;
  if (op.status === 'CONFIRMED' || op.status === 'FAILED') return `already ${op.status}`;
  if (op.status === 'BROADCAST') {
    await scheduleConfirm(deps, op);
    return 'already broadcast';
  }
  const adaptor = deps.registry.get(op.ledgerId);
  const unsigned = fromStored(op.unsigned);
  // Assembled by an earlier run: the stored bytes are the transaction, whatever comes later.
  let signed = op.status === 'SIGNED' && op.broadcastAttempted ? storedSigned(op) : undefined;
  // Assembled here and moved to SIGNED by this run: no node has seen these bytes yet.
  let firstSend = false;
  if (!signed) {
    const payloads = op.unsigned.payloads;
    if (sigs.size < payloads.length) return `waiting for signatures (${sigs.size}/${payloads.length})`;
    const verified: VerifiedSignature[] = payloads.map((_, i) => {
      const s = sigs.get(i) as { signature: string; recoveryId: 0 | 1 };
      return { payloadIndex: i, signature: Uint8Array.from(Buffer.from(s.signature, 'hex')), recoveryId: s.recoveryId };
    });
    try {
      signed = adaptor.combine(unsigned, verified);
    } catch (e) {
      await failOperation(deps, op, `could not assemble the signed transaction: ${(e as Error).message}`);
      await journal.log(`FAILED: could not assemble the signed transaction: ${(e as Error).message}`);
      throw new UnrecoverableError((e as Error).message);
    }
    const txids = signed.map((t) => t.txid);
    void journal.log(`assembled ${signed.length} signed transaction(s) from ${payloads.length} signature(s); txid ${txids.join(', ')}`);
    // The signed bytes are kept: a node that drops the transaction gets them again, unsigned by nobody new.
    const signedTxs = signed.map((t) => t.serialized);
    if (op.status === 'EXECUTING') {
      const moved = await deps.store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids, signedTxs, broadcastAttempted: true }), undefined, op);
      firstSend = moved !== undefined;
      op = moved ?? (await deps.store.get(op.id));
    }
    if (op.status !== 'SIGNED') return `moved to ${op.status} meanwhile`;
    if (!op.broadcastAttempted || op.txids.join() !== txids.join() || !op.signedTxs) {
      op = await deps.store.update(op.id, (o) => ({ ...o, txids, signedTxs, broadcastAttempted: true }));
    }
  }

  const order = adaptor.sendOrder?.(unsigned);
  if (!order) {
    let results;
    try {
      results = await sendSigned(deps, adaptor, op, signed, { firstSend });
    } catch (e) {
      return refused(deps, op, e, journal);
    }
    await journal.log(sentLine(results));
    op = (await deps.store.transition(op.id, ['SIGNED'], 'BROADCAST', undefined, undefined, op)) ?? (await deps.store.get(op.id));
    await scheduleConfirm(deps, op);
    journal.seen?.(op);
    return 'broadcast';
  }

  // A job that goes to sleep leaves its description as the record in hand says (SIGNED).
  journal.seen?.(op);
  const outcome: OwnOutcome = await sendInOrder(deps, deps.sendOrder, adaptor, { op, signed, ...order, journal, waits: opts.waits ?? 0, jobId: opts.jobId });
  journal.seen?.(outcome.kind === 'sent' ? outcome.op : op);
  if (outcome.kind === 'sent') return outcome.op.status === 'BROADCAST' ? 'broadcast' : `moved to ${outcome.op.status} meanwhile`;
  if (outcome.kind === 'waiting') {
    deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: 'waiting_for_predecessor' });
    throw new PredecessorPending(order.account, order.sequence, outcome.next);
  }
  // A node that refuses gaps saw a predecessor missing that the book did not (another node
  // behind a balancer, a predecessor the node dropped): wait like any other successor.
  if (outcome.error instanceof NodeRejectionError && outcome.error.kind === 'nonce_too_high') {
    deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: 'waiting_for_predecessor' });
    throw new PredecessorPending(order.account, order.sequence, order.sequence - 1n);
  }
  journal.seen?.(undefined);
  return refused(deps, op, outcome.error, journal);
}

/**
 * The node refused the job's own transaction: retried (thrown); FAILED when the refusal proves
 * it can never land; otherwise held open, BROADCAST with the `refused` mark, and watched. Only
 * from SIGNED: the answer may be older than a send of the same bytes by another run that the
 * node took, and a withdrawal that is out is never ended by an old answer.
 */
async function refused(deps: PipelineDeps, op: Operation, e: unknown, journal: JobJournal): Promise<string> {
  const retry = isRetryable(e);
  const forever = provesNeverLands(e);
  deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: retry ? 'retryable_error' : 'rejected' });
  await journal.log(
    `sent ${op.txids.join(', ')}; the node answered: ${(e as Error).message} (${retry ? 'retrying' : forever ? 'final: the transaction can never be valid' : 'refused for now: held open, watched'})`,
  );
  if (retry) throw e;
  if (forever) {
    if (await failOperation(deps, op, failureReason(e), ['SIGNED'])) throw new UnrecoverableError((e as Error).message);
  } else {
    const held = await holdRefused(deps, op, e);
    if (held) {
      journal.seen?.(held);
      await scheduleConfirm(deps, held);
      return `refused by the node, held open: ${(e as Error).message}`;
    }
  }
  const now = await deps.store.get(op.id);
  journal.seen?.(now);
  await journal.log(`the withdrawal is ${now.status} meanwhile: that answer no longer decides`);
  if (now.status === 'BROADCAST') await scheduleConfirm(deps, now);
  return `moved to ${now.status} meanwhile`;
}

export async function scheduleConfirm(deps: PipelineDeps, op: Operation): Promise<void> {
  await addConfirmJob(deps.queues, op, deps.config.confirmPollMs);
}

/** "rejected by the ledger: <why>", said once whatever the error's own title. */
export function failureReason(e: unknown): string {
  return `rejected by the ledger: ${e instanceof AppError ? e.details : (e as Error).message}`;
}
