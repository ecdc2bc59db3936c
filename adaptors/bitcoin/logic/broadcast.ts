import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { BroadcastRejected } from '../network/backend.js';
import { bitcoinRejection } from '../network/errors.js';

/** Sends through the back end; "already known" is success, other refusals are the typed rejection of network/errors.ts. */
export async function broadcast(ctx: BtcContext, tx: SignedTx): Promise<BroadcastResult> {
  try {
    const txid = await ctx.backend.broadcast(tx.serialized);
    if (txid && txid !== tx.txid) ctx.deps.logger.warn({ ledgerId: ctx.ledgerId, expected: tx.txid, got: txid }, 'back end answered another txid');
    return { txid: tx.txid, alreadyKnown: false };
  } catch (e) {
    if (!(e instanceof BroadcastRejected)) throw e;
    const rejection = bitcoinRejection(e.reason, e.code, `${ctx.ledgerId} node refused ${tx.txid}`);
    if (rejection.kind === 'already_known') return { txid: tx.txid, alreadyKnown: true };
    throw rejection;
  }
}
