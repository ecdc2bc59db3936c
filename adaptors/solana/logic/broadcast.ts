import { getBase58Decoder, getTransactionDecoder } from '@solana/kit';
import { NodeRejectionError, PermanentLedgerError, UnavailableError } from '../../../src/platform/errors.js';
import type { BroadcastContext, BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';
import { AlreadyProcessedError, ExpiredTransactionError } from '../network/errors.js';
import { landing, lifetimeOfMessage } from './landing.js';

/**
 * Sends the wire transaction (base64). A signature the node already knows, before or during
 * the send, is "already known". A refusal is a NodeRejectionError naming the node (errors.ts):
 * invalid forever only for the bytes' own faults; a failed preflight is one node's simulation
 * at its slot and proves nothing. "Blockhash not found" is also what our own landed
 * durable-nonce transaction gets when sent again (the runtime checks the nonce before its status
 * cache, and the nonce has moved on), and what a node behind says of a blockhash it has not seen
 * yet. Found after all, it is already known; shown expired by landing.ts (at `confirmed`), a
 * refusal that the status check proves at the ledger's commitment; anything else (a lookup from
 * a node behind the one that answered for the nonce or the blockhash, a nonce still unused) is
 * retried later.
 */
export async function broadcast(ctx: SolanaContext, signed: SignedTx, { firstSend = false }: BroadcastContext = {}): Promise<BroadcastResult> {
  const bytes = Buffer.from(signed.serialized, 'hex');
  const tx = getTransactionDecoder().decode(bytes);
  const first = Object.values(tx.signatures)[0];
  if (!first || getBase58Decoder().decode(first) !== signed.txid) throw new PermanentLedgerError(`signed transaction does not carry signature ${signed.txid}`);
  // The look-up first tells a resend of a transaction already in (after a crash, a lost answer)
  // from a send, without sending it twice; bytes no node has seen need none (one round trip
  // less per withdrawal). Without the look-up the answers stay right: a landed transaction sent
  // again is refused and found below.
  if (!firstSend && (await ctx.rpc.getSignatureStatus(signed.txid))) return { txid: signed.txid, alreadyKnown: true };
  try {
    const txid = await ctx.rpc.sendTransaction(bytes.toString('base64'));
    if (txid !== signed.txid) throw new PermanentLedgerError(`the node named the transaction ${txid}, expected ${signed.txid}`);
    return { txid, alreadyKnown: false };
  } catch (e) {
    if (e instanceof AlreadyProcessedError) return { txid: signed.txid, alreadyKnown: true };
    if (!(e instanceof ExpiredTransactionError)) throw e;
    const verdict = await landing(ctx.rpc, signed.txid, lifetimeOfMessage(Uint8Array.from(tx.messageBytes)));
    if (verdict.kind === 'landed') return { txid: signed.txid, alreadyKnown: true };
    if (verdict.kind === 'never') {
      throw new NodeRejectionError('nonce_taken', `${e.details}; ${verdict.reason}`, false, ctx.rpc.node ? { node: ctx.rpc.node } : {});
    }
    throw new UnavailableError(`Solana: the node refused ${signed.txid} as expired (${e.details}); not proven: ${verdict.reason}; retrying later`, e);
  }
}
