import type { BroadcastContext, BroadcastResult, LedgerAdaptor, SignedTx } from '../../ledger/adaptor.js';
import type { Operation } from '../model/operation.js';
import type { PipelineDeps } from '../pipeline-deps.js';

/** An operation's signed transactions as stored when it became SIGNED (the bytes every resend sends). */
export function storedSigned(op: Operation): SignedTx[] | undefined {
  if (!op.signedTxs || op.signedTxs.length === 0 || op.signedTxs.length !== op.txids.length) return undefined;
  return op.signedTxs.map((serialized, txIndex) => ({ txIndex, serialized, txid: op.txids[txIndex] as string }));
}

/**
 * Sends an operation's signed transactions in order, logging and counting each the node took.
 * An error is thrown as the node gave it: who handles it depends on whose transaction it is.
 */
export async function sendSigned(
  deps: Pick<PipelineDeps, 'logger' | 'metrics'>,
  adaptor: LedgerAdaptor,
  op: Operation,
  signed: SignedTx[],
  context: BroadcastContext = {},
): Promise<BroadcastResult[]> {
  const results: BroadcastResult[] = [];
  for (const tx of signed) {
    const r = await adaptor.broadcast(tx, context);
    noteSent(deps, op, r);
    results.push(r);
  }
  return results;
}

/** Logs and counts one transaction of `op` that the node took. */
export function noteSent(deps: Pick<PipelineDeps, 'logger' | 'metrics'>, op: Operation, r: BroadcastResult): void {
  deps.logger.info({ withdrawalId: op.id, txid: r.txid, alreadyKnown: r.alreadyKnown, ledgerId: op.ledgerId }, 'broadcast');
  deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: r.alreadyKnown ? 'already_known' : 'sent' });
}

/** What a job log says of a node's answer. */
export function sentLine(results: BroadcastResult[], by?: string): string {
  return results.map((r) => `sent ${r.txid}${by ? ` by ${by}` : ''}; the node answered: ${r.alreadyKnown ? 'already known' : 'accepted'}`).join('; ');
}
