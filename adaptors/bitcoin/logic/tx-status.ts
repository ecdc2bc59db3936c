import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { bitcoinState } from './state.js';

/**
 * Confirmations from the back end; confirmed once they reach the ledger's `confirmations`.
 * A transaction the back end does not know is `failed` when one of its inputs was spent by
 * another transaction (named in `spentBy`: a conflict, or one of our own replacements), and
 * `unknown` (dropped, to be sent again) while its inputs are all unspent.
 */
export async function txStatus(ctx: BtcContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const s = await ctx.backend.txStatus(txid);
  if (!s) {
    const { inputs } = bitcoinState.decode(unsigned.state, { ledgerId: ctx.ledgerId });
    const spends = await Promise.all(inputs.map((i) => ctx.backend.outspend(i.txid, i.vout)));
    const spent = spends.find((o) => o.spent && o.txid !== txid);
    if (spent) return { state: 'failed', confirmations: 0, reason: `inputs spent by ${spent.txid ?? 'another transaction'}`, ...(spent.txid ? { spentBy: spent.txid } : {}) };
    return { state: 'unknown', confirmations: 0 };
  }
  if (!s.confirmed || s.blockHeight === undefined) return { state: 'pending', confirmations: 0 };
  const tip = await ctx.backend.tipHeight();
  const confirmations = Math.max(0, tip - s.blockHeight + 1);
  return {
    state: confirmations >= ctx.confirmations ? 'confirmed' : 'pending',
    confirmations,
    blockHeight: s.blockHeight,
  };
}
