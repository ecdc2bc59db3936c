import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';
import { readNonceAccount } from './accounts.js';
import { solanaState } from './state.js';

const RANK = { processed: 0, confirmed: 1, finalized: 2 } as const;
/** Not known to the node yet still able to land: the pipeline sends the stored bytes again. */
const dropped = (): TxStatus => ({ state: 'unknown', confirmations: 0 });

/**
 * Confirmed once the signature reaches the configured commitment. A transfer the node does
 * not know whose durable nonce has already moved on can never land, nor can a setup past its
 * blockhash's last valid height: failed. One the node does not know that can still land (the
 * durable nonce is still the one it carries, the setup's blockhash is still valid) was
 * dropped: an RPC node stops retrying a transaction after about 150 blocks and forgets it on
 * restart. That is unknown, so the stored signed bytes are sent again.
 */
export async function txStatus(ctx: SolanaContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const status = await ctx.rpc.getSignatureStatus(txid);
  if (status) {
    const reached = RANK[status.confirmationStatus ?? 'processed'] >= RANK[ctx.options.commitment];
    // A failure on chain is final at the same commitment as a success: seen only at `processed`, its fork may still be dropped.
    if (status.err) return { state: 'failed', confirmations: reached ? ctx.options.confirmations : 0, blockHeight: status.slot, reason: JSON.stringify(status.err) };
    return reached
      ? { state: 'confirmed', confirmations: ctx.options.confirmations, blockHeight: status.slot }
      : { state: 'pending', confirmations: 0, blockHeight: status.slot };
  }
  const state = solanaState.decode(unsigned.state);
  if (state.kind === 'nonce-setup' && state.lastValidBlockHeight !== undefined) {
    if ((await ctx.rpc.getBlockHeight()) <= state.lastValidBlockHeight) return dropped();
    // Past its blockhash's last valid height the setup can never land; look once more in case it just did.
    if (!(await ctx.rpc.getSignatureStatus(txid))) return { state: 'failed', confirmations: 0, reason: 'its blockhash expired before it landed' };
    return txStatus(ctx, txid, unsigned);
  }
  if (state.kind === 'transfer') {
    const [nonce] = await ctx.rpc.getMultipleAccounts([state.nonceAccount]);
    // No nonce account in the answer (a node behind the one that created it) decides nothing.
    if (!nonce) return { state: 'pending', confirmations: 0 };
    if (readNonceAccount(nonce, state.nonceAccount).nonce !== state.lifetime) {
      // Read the signature once more: it may have landed between the two calls.
      if (!(await ctx.rpc.getSignatureStatus(txid))) return { state: 'failed', confirmations: 0, reason: 'the durable nonce advanced without this transaction' };
      return txStatus(ctx, txid, unsigned);
    }
    return dropped();
  }
  return { state: 'pending', confirmations: 0 };
}
