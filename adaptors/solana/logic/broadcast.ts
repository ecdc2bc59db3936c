import { getBase58Decoder, getTransactionDecoder } from '@solana/kit';
import { PermanentLedgerError } from '../../../src/errors.js';
import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';
import { AlreadyProcessedError, ExpiredTransactionError } from '../network/errors.js';

/**
 * Sends the wire transaction (base64). A signature the node already knows, before or during
 * the send, is "already known". Preflight failures are permanent for this signed transaction.
 * "Blockhash not found" is also what our own landed durable-nonce transaction gets when sent
 * again (the runtime checks the nonce before its status cache, and the nonce has moved on):
 * the signature is looked up once more before it counts as expired, since behind a load
 * balancer the first lookup may have reached a node that had not seen it land yet.
 */
export async function broadcast(ctx: SolanaContext, signed: SignedTx): Promise<BroadcastResult> {
  const bytes = Buffer.from(signed.serialized, 'hex');
  const tx = getTransactionDecoder().decode(bytes);
  const first = Object.values(tx.signatures)[0];
  if (!first || getBase58Decoder().decode(first) !== signed.txid) throw new PermanentLedgerError(`signed transaction does not carry signature ${signed.txid}`);
  if (await ctx.rpc.getSignatureStatus(signed.txid)) return { txid: signed.txid, alreadyKnown: true };
  try {
    const txid = await ctx.rpc.sendTransaction(bytes.toString('base64'));
    if (txid !== signed.txid) throw new PermanentLedgerError(`the node named the transaction ${txid}, expected ${signed.txid}`);
    return { txid, alreadyKnown: false };
  } catch (e) {
    if (e instanceof AlreadyProcessedError) return { txid: signed.txid, alreadyKnown: true };
    if (e instanceof ExpiredTransactionError && (await ctx.rpc.getSignatureStatus(signed.txid))) return { txid: signed.txid, alreadyKnown: true };
    throw e;
  }
}
