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

/**
 * `eth_sendRawTransaction`. A node that already has this exact transaction (mempool or chain)
 * is success with `alreadyKnown`, so a retried job after a lost answer does not fail. Network
 * trouble stays the client's retryable UnavailableError. Once accepted the nonce is settled
 * and can no longer be handed out again.
 */
export async function broadcast(ctx: EthContext, signed: SignedTx): Promise<BroadcastResult> {
  const raw = signed.serialized.startsWith('0x') ? signed.serialized : `0x${signed.serialized}`;
  let tx: Transaction;
  try {
    tx = Transaction.from(raw);
  } catch (e) {
    throw new InvalidArgumentError(`not a signed Ethereum transaction: ${(e as Error).message}`);
  }
  const txid = keccak256(raw);
  const from = senderOf(tx);
  if (!from || txid.toLowerCase() !== signed.txid.toLowerCase()) {
    throw new InvalidArgumentError(`signed transaction does not match txid ${signed.txid}`);
  }

  let alreadyKnown = false;
  try {
    await ctx.rpc.call<string>('eth_sendRawTransaction', [raw]);
  } catch (e) {
    if (!(e instanceof JsonRpcError)) throw e;
    const rejection = ethRejection(e.rpcMessage, e.rpcCode, `${ctx.ledgerId} node refused nonce ${tx.nonce} of ${from}`);
    if (rejection.kind === 'already_known') {
      alreadyKnown = true;
    } else if (rejection.kind === 'nonce_too_low' || rejection.kind === 'replacement_underpriced') {
      // Our own transaction already in (a lost answer, a resend) or another one holding the number.
      if (!(await knownToNode(ctx, txid))) {
        throw new NodeRejectionError('nonce_taken', `nonce ${tx.nonce} of ${from} is used by another transaction (${e.rpcMessage})`, false);
      }
      alreadyKnown = true;
    } else {
      throw rejection;
    }
  }
  await ctx.deps.reservations.settleSequence(nonceScope(ctx, from), BigInt(tx.nonce));
  return { txid, alreadyKnown };
}
