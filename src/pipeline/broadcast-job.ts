import { UnrecoverableError } from 'bullmq';
import { AppError, NodeRejectionError } from '../errors.js';
import type { VerifiedSignature } from '../ledger/adaptor.js';
import { fromStored, type Operation } from './operation.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { addConfirmJob, broadcastJobId } from './queues.js';
import { checkSendOrder, PredecessorPending } from './send-order.js';
import { failOperation } from './fail-operation.js';
import { noJournal, type JobJournal } from './job-journal.js';

/** Errors worth another attempt: back ends down, timeouts, anything not known to be final. */
export function isRetryable(e: unknown): boolean {
  return e instanceof AppError ? e.retryable : true;
}

/**
 * Assembles and broadcasts one signed withdrawal. Idempotent: it reloads the operation,
 * records the txids before anything is sent, treats "already known" as success, and
 * does nothing for an operation that has moved on. A transaction whose predecessor in its
 * account has not gone out throws PredecessorPending, which the worker turns into a delay
 * (send-order.ts); a refusal for good ends the operation FAILED with the node's words.
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
  // The signed bytes are kept: a node that drops the transaction gets them again, unsigned by nobody new.
  const signedTxs = signed.map((t) => t.serialized);
  if (op.status === 'EXECUTING') {
    op = (await deps.store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids, signedTxs, broadcastAttempted: true }))) ?? (await deps.store.get(op.id));
  }
  if (op.status !== 'SIGNED') return `moved to ${op.status} meanwhile`;
  if (!op.broadcastAttempted || op.txids.join() !== txids.join() || !op.signedTxs) {
    op = await deps.store.update(op.id, (o) => ({ ...o, txids, signedTxs, broadcastAttempted: true }));
  }
  let order: { account: string; sequence: bigint } | undefined;
  try {
    order = await checkSendOrder(
      adaptor,
      unsigned,
      (e) =>
        deps.logger.warn({ operationId: op.id, err: (e as Error).message }, 'could not read the account order from the node; sending anyway'),
      deps.sendOrder,
    );
  } catch (e) {
    if (e instanceof PredecessorPending) {
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: 'waiting_for_predecessor' });
      await deps.sendOrder?.waiting(op.ledgerId, e.account, e.sequence, op.id);
    }
    throw e;
  }
  for (const tx of signed) {
    try {
      const r = await adaptor.broadcast(tx);
      deps.logger.info({ operationId: op.id, txid: r.txid, alreadyKnown: r.alreadyKnown, ledgerId: op.ledgerId }, 'broadcast');
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: r.alreadyKnown ? 'already_known' : 'sent' });
      await journal.log(`sent ${r.txid}; the node answered: ${r.alreadyKnown ? 'already known' : 'accepted'}`);
    } catch (e) {
      // A node that refuses gaps saw a predecessor missing that our check did not (another
      // node behind a balancer, a resend racing ours): wait like any other successor.
      if (order && e instanceof NodeRejectionError && e.kind === 'nonce_too_high') {
        deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: 'waiting_for_predecessor' });
        await deps.sendOrder?.waiting(op.ledgerId, order.account, order.sequence, op.id);
        throw new PredecessorPending(order.account, order.sequence, order.sequence - 1n);
      }
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: isRetryable(e) ? 'retryable_error' : 'rejected' });
      await journal.log(`sent ${tx.txid}; the node answered: ${(e as Error).message} (${isRetryable(e) ? 'retrying' : 'final'})`);
      if (isRetryable(e)) throw e;
      await failOperation(deps, op, failureReason(e));
      throw new UnrecoverableError((e as Error).message);
    }
  }
  if (order) await wakeSuccessor(deps, op.ledgerId, order);
  op = (await deps.store.transition(op.id, ['SIGNED'], 'BROADCAST')) ?? op;
  await scheduleConfirm(deps, op);
  return 'broadcast';
}

export async function scheduleConfirm(deps: PipelineDeps, op: Operation): Promise<void> {
  await addConfirmJob(deps.queues, op, deps.config.confirmPollMs);
}

/** "rejected by the ledger: <why>", said once whatever the error's own title. */
export function failureReason(e: unknown): string {
  return `rejected by the ledger: ${e instanceof AppError ? e.details : (e as Error).message}`;
}

/** The transaction at the next number of the account may have waited for this one: send it now. */
async function wakeSuccessor(deps: PipelineDeps, ledgerId: string, order: { account: string; sequence: bigint }): Promise<void> {
  try {
    const successor = await deps.sendOrder?.sent(ledgerId, order.account, order.sequence);
    if (!successor) return;
    const job = await deps.queues.broadcast.getJob(broadcastJobId(successor));
    if (job && (await job.isDelayed())) await job.promote();
  } catch (e) {
    // Only latency is lost: the successor looks again on its own.
    deps.logger.debug({ err: (e as Error).message, ledgerId }, 'could not wake the next transaction of the account');
  }
}
