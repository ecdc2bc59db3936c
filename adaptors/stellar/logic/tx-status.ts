import { extractBaseAddress } from '@stellar/stellar-base';
import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import { codesFromResultXdr, describeCodes } from '../network/errors.js';
import { notFoundAfterBound, notFoundBeforeBound } from './expiry.js';
import { stellarState } from './state.js';

/**
 * Where a transaction stands, from Horizon. A transaction that landed inside a fee-bump the
 * vault paid (our speed-up) is reported as spent by that fee-bump; inside another's, as landed.
 * Not found, it is lost only on proof from a closed ledger: its sequence number taken by
 * another transaction (`spentBy`, which may be this withdrawal's own cancel or speed-up), or
 * its upper time bound passed; each with the confirmations of the ledger that proves it
 * (`proofConfirmations`). Otherwise `unknown` until the ledger's own close time passes the
 * upper time bound (the network's clock, not ours, decides): the same signed envelope can be
 * submitted again (stellar-core drops queued transactions after a while). After the bound no
 * ledger can include it any more, but whether it is `failed` is decided by `notFoundAfterBound`,
 * since the "not found" may come from a Horizon instance that lags behind the one that answered
 * the latest ledger. The two lookups run in parallel: what makes the conclusion sound is what
 * each negative answer's own instance had ingested, not the order of the requests.
 */
export async function txStatus(ctx: StellarContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const [lookup, latest] = await Promise.all([ctx.horizon.transactionAsOf(txid), ctx.horizon.latestLedger()]);
  const tx = lookup.value;
  if (tx) {
    const outer = tx.fee_bump_transaction?.hash;
    // Inside our own speed-up (a fee-bump the vault paid): spent by that attempt, which the
    // pipeline follows. Inside anyone else's (the signed envelope is public once sent, and
    // anyone may pay to wrap it): it landed all the same, paid as signed, so it is reported
    // as landed below, never as a conflict.
    if (outer && outer !== txid && tx.inner_transaction?.hash === txid && tx.fee_account === extractBaseAddress(stellarState.decode(unsigned.state).source)) {
      return { state: 'failed', confirmations: 0, reason: `included inside fee-bump ${outer}`, spentBy: outer };
    }
    const confirmations = Math.max(0, latest.sequence - tx.ledger + 1);
    if (tx.successful) return { state: 'confirmed', confirmations, blockHeight: tx.ledger };
    return { state: 'failed', confirmations, blockHeight: tx.ledger, reason: describeCodes(codesFromResultXdr(tx.result_xdr)) };
  }
  const { expiresAt } = unsigned;
  if (expiresAt !== undefined && Date.parse(latest.closed_at) > expiresAt) {
    return notFoundAfterBound(ctx, txid, unsigned, expiresAt, latest, lookup.latestLedger);
  }
  return notFoundBeforeBound(ctx, txid, unsigned, latest);
}
