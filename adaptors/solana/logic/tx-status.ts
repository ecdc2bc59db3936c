import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';
import type { RpcSignatureStatus } from '../network/rpc.js';
import { landing, type TxLifetime } from './landing.js';
import { solanaState } from './state.js';

const RANK = { processed: 0, confirmed: 1, finalized: 2 } as const;
/** Not known to the node yet still able to land: the pipeline sends the stored bytes again. */
const dropped = (): TxStatus => ({ state: 'unknown', confirmations: 0 });
/** Not decided yet: looked at again later. */
const pending = (): TxStatus => ({ state: 'pending', confirmations: 0 });

/**
 * Confirmed once the signature reaches the configured commitment. A transaction the node does
 * not know is failed only when landing.ts proves it can never land: its lifetime is over in the
 * bank at the configured commitment (the transfer's durable nonce moved on, the setup's blockhash
 * is past its last valid height) and a signature lookup answered at that slot or later does not
 * know it; the proof, read at the commitment a confirmation needs, carries the ledger's
 * `confirmations` (`proofConfirmations`). A lookup from a node behind
 * that proves nothing: pending, looked at again. One that can still land (the durable nonce is
 * still the one it carries, the setup's blockhash is still valid) was dropped: an RPC node
 * stops retrying a transaction after about 150 blocks and forgets it on restart. That is
 * unknown, so the stored signed bytes are sent again.
 */
export async function txStatus(ctx: SolanaContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const status = await ctx.rpc.getSignatureStatus(txid);
  if (status) return found(ctx, status);
  const state = solanaState.decode(unsigned.state);
  let lifetime: TxLifetime;
  if (state.kind === 'transfer') lifetime = { kind: 'nonce', nonceAccount: state.nonceAccount, nonce: state.lifetime };
  else if (state.lastValidBlockHeight !== undefined)
    lifetime = { kind: 'blockhash', blockhash: state.lifetime, lastValidBlockHeight: state.lastValidBlockHeight };
  else return pending();
  // Read from the bank at the ledger's commitment: at `finalized` no fork can take the proof back.
  const verdict = await landing(ctx.rpc, txid, lifetime, ctx.options.commitment);
  switch (verdict.kind) {
    case 'landed':
      return found(ctx, verdict.status);
    case 'never':
      return { state: 'failed', confirmations: 0, reason: verdict.reason, proofConfirmations: ctx.options.confirmations };
    case 'can-land':
      return dropped();
    case 'unproven':
      return pending();
  }
}

function found(ctx: SolanaContext, status: RpcSignatureStatus): TxStatus {
  const reached = RANK[status.confirmationStatus ?? 'processed'] >= RANK[ctx.options.commitment];
  // A failure on chain is final at the same commitment as a success: seen only at `processed`, its fork may still be dropped.
  if (status.err)
    return { state: 'failed', confirmations: reached ? ctx.options.confirmations : 0, blockHeight: status.slot, reason: JSON.stringify(status.err) };
  return reached
    ? { state: 'confirmed', confirmations: ctx.options.confirmations, blockHeight: status.slot }
    : { state: 'pending', confirmations: 0, blockHeight: status.slot };
}
