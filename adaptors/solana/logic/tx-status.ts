import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';
import { readNonceAccount } from './accounts.js';
import { solanaState } from './state.js';

const RANK = { processed: 0, confirmed: 1, finalized: 2 } as const;

/**
 * Confirmed once the signature reaches the configured commitment. A transfer the node does
 * not know whose durable nonce has already moved on can never land, nor can a setup past its
 * blockhash's last valid height: failed.
 */
export async function txStatus(ctx: SolanaContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const status = await ctx.rpc.getSignatureStatus(txid);
  if (status) {
    if (status.err) return { state: 'failed', confirmations: 0, blockHeight: status.slot, reason: JSON.stringify(status.err) };
    const reached = RANK[status.confirmationStatus ?? 'processed'] >= RANK[ctx.options.commitment];
    return reached
      ? { state: 'confirmed', confirmations: ctx.options.confirmations, blockHeight: status.slot }
      : { state: 'pending', confirmations: 0, blockHeight: status.slot };
  }
  const state = solanaState.decode(unsigned.state);
  if (state.kind === 'nonce-setup' && state.lastValidBlockHeight !== undefined && (await ctx.rpc.getBlockHeight()) > state.lastValidBlockHeight) {
    // Past its blockhash's last valid height the setup can never land; look once more in case it just did.
    if (!(await ctx.rpc.getSignatureStatus(txid))) return { state: 'failed', confirmations: 0, reason: 'its blockhash expired before it landed' };
    return txStatus(ctx, txid, unsigned);
  }
  if (state.kind === 'transfer') {
    const [nonce] = await ctx.rpc.getMultipleAccounts([state.nonceAccount]);
    if (nonce && readNonceAccount(nonce, state.nonceAccount).nonce !== state.lifetime) {
      // Read the signature once more: it may have landed between the two calls.
      if (!(await ctx.rpc.getSignatureStatus(txid))) return { state: 'failed', confirmations: 0, reason: 'the durable nonce advanced without this transaction' };
      return txStatus(ctx, txid, unsigned);
    }
  }
  return { state: 'pending', confirmations: 0 };
}
