import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import { bloomMayHoldTransfer, hasTransferEvent, transferRecipient, type ReceiptLog } from './erc20.js';
import { nonceUse } from './nonce.js';
import { ethereumState } from './state.js';

interface Receipt {
  status?: string;
  blockNumber: string;
  logs?: ReceiptLog[];
  logsBloom?: string;
}

/**
 * Where a broadcast transaction stands. Once mined it is `confirmed` with its confirmation
 * count (latest − block + 1), however small: the pipeline compares the count with the
 * ledger's `confirmations` threshold, so this function holds no policy. A reverted
 * transaction is `failed` ("reverted") with its block and confirmation count like a success:
 * its fee is spent, but it is final only at the threshold, since its block may still leave
 * the chain and the same transaction be mined again and succeed. An ERC-20 transfer mined with
 * status 1 but without the token's `Transfer` event from the vault to the recipient moved
 * nothing (the token returned `false`): `failed` the same way, but only on a receipt whose
 * logs the node gave and its bloom agrees with (else `pending`, to look again). Not mined and no
 * longer known while the account's mined nonce has passed ours: `failed` only when the block
 * that used the nonce shows another transaction there (`nonceUse`), named in `spentBy`, with
 * that block's confirmations as `proofConfirmations` (the pipeline decides at depth), else `pending`. Known but not mined: `pending`. Unknown to the node while the
 * nonce is still open: `unknown` (dropped from the pool, or reorganised out), to be sent again.
 */
export async function txStatus(ctx: EthContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const [receipt, latestHex] = await ctx.rpc.batch<unknown>([
    { method: 'eth_getTransactionReceipt', params: [txid] },
    { method: 'eth_blockNumber', params: [] },
  ]);
  const latest = Number(BigInt(latestHex as string));
  if (receipt) {
    const r = receipt as Receipt;
    const blockHeight = Number(BigInt(r.blockNumber));
    const confirmations = Math.max(0, latest - blockHeight + 1);
    // Pre-Byzantium receipts carry no status; they do not occur on any chain this serves.
    if (r.status !== undefined && BigInt(r.status) === 0n) {
      return { state: 'failed', confirmations, blockHeight, reason: 'reverted' };
    }
    const state = ethereumState.decode(unsigned.state);
    const recipient = transferRecipient(state.data);
    if (recipient && !hasTransferEvent(r.logs ?? [], state.to, state.from, recipient)) {
      // "Moved nothing" only on the node's full word: a receipt without its logs, or with none
      // while its own bloom may hold the token's Transfer, proves nothing either way.
      const logs = r.logs;
      if (!Array.isArray(logs) || (logs.length === 0 && bloomMayHoldTransfer(r.logsBloom, state.to))) {
        return { state: 'pending', confirmations: 0, blockHeight };
      }
      return {
        state: 'failed',
        confirmations,
        blockHeight,
        reason: `the token moved nothing: no Transfer event to ${recipient} (the contract returned false?)`,
      };
    }
    return { state: 'confirmed', confirmations, blockHeight };
  }
  const state = ethereumState.decode(unsigned.state);
  const [tx, minedNonceHex] = await ctx.rpc.batch<unknown>([
    { method: 'eth_getTransactionByHash', params: [txid] },
    { method: 'eth_getTransactionCount', params: [state.from, 'latest'] },
  ]);
  if (tx !== null) return { state: 'pending', confirmations: 0 };
  if (BigInt(minedNonceHex as string) <= BigInt(state.nonce)) return { state: 'unknown', confirmations: 0 };
  // The nonce is used and this answer does not know our transaction; behind a load balancer the
  // two may come from different nodes, so the block that used the nonce says whose it was.
  const use = await nonceUse(ctx, state.from, BigInt(state.nonce));
  if (use.kind === 'used' && use.hash.toLowerCase() !== txid.toLowerCase()) {
    return {
      state: 'failed',
      confirmations: 0,
      reason: `replaced: nonce ${state.nonce} used by transaction ${use.hash}`,
      spentBy: use.hash,
      proofConfirmations: use.confirmations,
    };
  }
  return { state: 'pending', confirmations: 0 };
}
