import { Transaction } from 'bitcoinjs-lib';
import { UnavailableError } from '../../../src/platform/errors.js';
import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { BroadcastRejected } from '../network/backend.js';
import { bitcoinRejection } from '../network/errors.js';

/**
 * Whether the back end has `txid` (mempool or chain), asked after the node said its inputs are
 * missing or taken: that is also its answer to our own transaction once mined with every output
 * spent since, when the answer to the first send was lost. A lookup that fails leaves the
 * question open: the send is retried, never taken as a refusal of a transaction that may be in.
 */
async function knownToBackend(ctx: BtcContext, tx: SignedTx, refusal: string): Promise<boolean> {
  try {
    if ((await ctx.backend.txStatus(tx.txid)) !== undefined) return true;
    // Behind a load balancer the lookup may reach an instance that has not seen it mined; an
    // input whose spender is named as this very transaction proves it is in (Esplora names
    // spenders; Core's gettxout does not, and decides nothing here).
    const ins = Transaction.fromHex(tx.serialized).ins;
    const spends = await Promise.all(ins.map((i) => ctx.backend.outspend(Buffer.from(i.hash).reverse().toString('hex'), i.index)));
    return spends.some((o) => o.spent && o.txid === tx.txid);
  } catch (e) {
    throw new UnavailableError(
      `${ctx.ledgerId} node refused ${tx.txid} (${refusal}) and could not tell whether it holds it: ${(e as Error).message}`,
      e,
      'ERR_NODE_UNAVAILABLE',
    );
  }
}

/** Sends through the back end; "already known" is success, other refusals are the typed rejection of network/errors.ts. */
export async function broadcast(ctx: BtcContext, tx: SignedTx): Promise<BroadcastResult> {
  try {
    const sent = await ctx.backend.broadcast(tx.serialized, tx.txid);
    if (sent.txid && sent.txid !== tx.txid)
      ctx.deps.logger.warn({ ledgerId: ctx.ledgerId, expected: tx.txid, got: sent.txid }, 'back end answered another txid');
    return { txid: tx.txid, alreadyKnown: sent.alreadyKnown };
  } catch (e) {
    if (!(e instanceof BroadcastRejected)) throw e;
    const rejection = bitcoinRejection(e.reason, e.code, `${ctx.ledgerId} node refused ${tx.txid}`, ctx.backend.node);
    if (rejection.kind === 'already_known') return { txid: tx.txid, alreadyKnown: true };
    if ((rejection.kind === 'missing_inputs' || rejection.kind === 'inputs_conflict') && (await knownToBackend(ctx, tx, e.reason))) {
      return { txid: tx.txid, alreadyKnown: true };
    }
    throw rejection;
  }
}
