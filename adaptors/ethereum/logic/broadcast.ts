import { keccak256, Transaction } from 'ethers';
import { InvalidArgumentError, NodeRejectionError } from '../../../src/errors.js';
import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import { ethRejection } from '../network/errors.js';
import { JsonRpcError } from '../network/json-rpc.js';
import { nonceScope } from './nonce.js';
import { senderOf } from './sender.js';

async function knownToNode(ctx: EthContext, txid: string): Promise<boolean> {
  return (await ctx.rpc.call<unknown>('eth_getTransactionByHash', [txid])) !== null;
}

/** The sender and nonce of signed bytes from anywhere, checked against the txid they came with. */
function parseSigned(raw: string, expectedTxid: string): { txid: string; from: string; nonce: number } {
  let tx: Transaction;
  try {
    tx = Transaction.from(raw);
  } catch (e) {
    throw new InvalidArgumentError(`not a signed Ethereum transaction: ${(e as Error).message}`);
  }
  const txid = keccak256(raw);
  const from = senderOf(tx);
  if (!from || txid.toLowerCase() !== expectedTxid.toLowerCase()) {
    throw new InvalidArgumentError(`signed transaction does not match txid ${expectedTxid}`);
  }
  return { txid, from, nonce: tx.nonce };
}

/**
 * `eth_sendRawTransaction`. A node that already has this exact transaction (mempool or chain)
 * is success with `alreadyKnown`, so a retried job after a lost answer does not fail. Network
 * trouble stays the client's retryable UnavailableError. Once accepted the nonce is settled
 * and can no longer be handed out again. Bytes that combine assembled in this process (the
 * same bytes under the same txid) skip the parse and the key recovery (assembled.ts).
 */
export async function broadcast(ctx: EthContext, signed: SignedTx): Promise<BroadcastResult> {
  const raw = signed.serialized.startsWith('0x') ? signed.serialized : `0x${signed.serialized}`;
  const { txid, from, nonce } = ctx.assembled.find(signed.txid, raw) ?? parseSigned(raw, signed.txid);

  let alreadyKnown = false;
  try {
    await ctx.rpc.call<string>('eth_sendRawTransaction', [raw]);
  } catch (e) {
    if (!(e instanceof JsonRpcError)) throw e;
    const rejection = ethRejection(e.rpcMessage, e.rpcCode, `${ctx.ledgerId} node refused nonce ${nonce} of ${from}`);
    if (rejection.kind === 'already_known') {
      alreadyKnown = true;
    } else if (rejection.kind === 'nonce_too_low' || rejection.kind === 'replacement_underpriced') {
      // Our own transaction already in (a lost answer, a resend) or another one holding the number.
      if (!(await knownToNode(ctx, txid))) {
        throw new NodeRejectionError('nonce_taken', `nonce ${nonce} of ${from} is used by another transaction (${e.rpcMessage})`, false);
      }
      alreadyKnown = true;
    } else {
      throw rejection;
    }
  }
  await ctx.deps.reservations.settleSequence(nonceScope(ctx, from), BigInt(nonce));
  return { txid, alreadyKnown };
}
