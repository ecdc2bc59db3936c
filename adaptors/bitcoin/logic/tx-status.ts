import type { TxStatus } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';

/** Confirmations from the back end; confirmed once they reach the ledger's `confirmations`. */
export async function txStatus(ctx: BtcContext, txid: string): Promise<TxStatus> {
  const s = await ctx.backend.txStatus(txid);
  if (!s) return { state: 'unknown', confirmations: 0 };
  if (!s.confirmed || s.blockHeight === undefined) return { state: 'pending', confirmations: 0 };
  const tip = await ctx.backend.tipHeight();
  const confirmations = Math.max(0, tip - s.blockHeight + 1);
  return {
    state: confirmations >= ctx.confirmations ? 'confirmed' : 'pending',
    confirmations,
    blockHeight: s.blockHeight,
  };
}
