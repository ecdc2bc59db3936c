import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import { codesFromResultXdr, describeCodes } from './result-codes.js';

/**
 * Where a transaction stands, from Horizon. A transaction that landed inside a fee-bump (our
 * speed-up) is reported as spent by that fee-bump. Not found is `unknown` until the ledger's
 * own close time passes the upper time bound (the network's clock, not ours, decides): the
 * same signed envelope can be submitted again (stellar-core drops queued transactions after a
 * while); after the bound it is `failed`, since no ledger can include it any more.
 */
export async function txStatus(ctx: StellarContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const [tx, latest] = await Promise.all([ctx.horizon.transaction(txid), ctx.horizon.latestLedger()]);
  if (tx) {
    const outer = tx.fee_bump_transaction?.hash;
    if (outer && outer !== txid && tx.inner_transaction?.hash === txid) {
      return { state: 'failed', confirmations: 0, reason: `included inside fee-bump ${outer}`, spentBy: outer };
    }
    const confirmations = Math.max(0, latest.sequence - tx.ledger + 1);
    if (tx.successful) return { state: 'confirmed', confirmations, blockHeight: tx.ledger };
    return { state: 'failed', confirmations, blockHeight: tx.ledger, reason: describeCodes(codesFromResultXdr(tx.result_xdr)) };
  }
  const closedAt = Date.parse(latest.closed_at);
  if (unsigned.expiresAt !== undefined && closedAt > unsigned.expiresAt) {
    return { state: 'failed', confirmations: 0, reason: 'expired: time bounds passed' };
  }
  return { state: 'unknown', confirmations: 0 };
}
