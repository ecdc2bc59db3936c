import { PermanentLedgerError, UnavailableError } from '../../../src/errors.js';
import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { BroadcastRejected, isAlreadyKnown } from '../network/backend.js';

/** Node reasons that say "not now" rather than "never". */
const TRANSIENT = /mempool full|too-long-mempool-chain|too long mempool chain/i;

/** Sends through the back end; "already known" is success, other refusals end the operation with the node's reason. */
export async function broadcast(ctx: BtcContext, tx: SignedTx): Promise<BroadcastResult> {
  try {
    const txid = await ctx.backend.broadcast(tx.serialized);
    if (txid && txid !== tx.txid) ctx.deps.logger.warn({ ledgerId: ctx.ledgerId, expected: tx.txid, got: txid }, 'back end answered another txid');
    return { txid: tx.txid, alreadyKnown: false };
  } catch (e) {
    if (!(e instanceof BroadcastRejected)) throw e;
    if (isAlreadyKnown(e.reason)) return { txid: tx.txid, alreadyKnown: true };
    if (TRANSIENT.test(e.reason)) throw new UnavailableError(`${ctx.ledgerId} node cannot take ${tx.txid} now: ${e.reason}`, e);
    throw new PermanentLedgerError(`${ctx.ledgerId} node rejected ${tx.txid}: ${e.reason}`);
  }
}
