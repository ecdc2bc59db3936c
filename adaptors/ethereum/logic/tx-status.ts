import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import { bloomMayHoldTransfer, hasTransferEvent, transferRecipient, type ReceiptLog } from './erc20.js';
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
 * longer known while the account's mined nonce has passed ours means another transaction
 * took the nonce: `failed`. Known but not mined: `pending`. Unknown to the node while the
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
      return { state: 'failed', confirmations, blockHeight, reason: `the token moved nothing: no Transfer event to ${recipient} (the contract returned false?)` };
    }
    return { state: 'confirmed', confirmations, blockHeight };
  }
  const state = ethereumState.decode(unsigned.state);
  const [tx, minedNonceHex] = await ctx.rpc.batch<unknown>([
    { method: 'eth_getTransactionByHash', params: [txid] },
    { method: 'eth_getTransactionCount', params: [state.from, 'latest'] },
  ]);
  if (tx === null && BigInt(minedNonceHex as string) > BigInt(state.nonce)) {
    // Mined between the two round trips? Then the node knows it by hash and we are not here.
    return { state: 'failed', confirmations: 0, reason: 'replaced: nonce used by another transaction' };
  }
  return { state: tx === null ? 'unknown' : 'pending', confirmations: 0 };
}
