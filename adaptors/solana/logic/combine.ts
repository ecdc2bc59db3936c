import { getBase58Decoder, getTransactionDecoder, getTransactionEncoder, type SignatureBytes } from '@solana/kit';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { SignedTx, UnsignedWithdrawal, VerifiedSignature } from '../../../src/ledger/adaptor.js';
import { addressFromPublicKey } from './address.js';
import { solanaState } from './state.js';

/**
 * Puts the vault's signature into the crafted transaction. The stored transaction's message
 * must be the payload that was signed and its only signer the vault, whose key is the
 * payload's. The signature was checked when it came in, over this payload's digest (the
 * message) and against its key (src/ledger/signatures.ts, the one place signatures are
 * checked), so it is not checked again. `serialized` is the wire transaction in hex; the txid
 * is the signature in base58, as Solana names transactions.
 */
export function combine(unsigned: UnsignedWithdrawal, sigs: VerifiedSignature[]): SignedTx[] {
  const state = solanaState.decode(unsigned.state);
  const payload = unsigned.payloads[0];
  const stored = unsigned.txs[0]?.serialized;
  if (!payload || !stored || unsigned.payloads.length !== 1 || unsigned.txs.length !== 1)
    throw new InvalidArgumentError('a Solana withdrawal has exactly one transaction and one payload');
  const sig = sigs.find((s) => s.payloadIndex === 0);
  if (!sig || sigs.length !== 1) throw new InvalidArgumentError(`expected one signature for payload 0, got ${sigs.length}`);
  if (sig.signature.length !== 64) throw new InvalidArgumentError(`an ed25519 signature has 64 bytes, got ${sig.signature.length}`);
  const tx = getTransactionDecoder().decode(Buffer.from(stored, 'hex'));
  const message = Uint8Array.from(tx.messageBytes);
  if (Buffer.from(message).toString('hex') !== payload.digest) throw new InvalidArgumentError('the stored transaction is not the message that was signed');
  const key = { scheme: 'ed25519' as const, bytes: Uint8Array.from(Buffer.from(payload.publicKey, 'hex')) };
  const signer = addressFromPublicKey(key);
  const signers = Object.keys(tx.signatures);
  if (signer !== state.vault || signers.length !== 1 || signers[0] !== state.vault) {
    throw new InvalidArgumentError('the stored transaction is not signed by the vault it was crafted for');
  }
  const signed = { ...tx, signatures: { ...tx.signatures, [signer]: Uint8Array.from(sig.signature) as SignatureBytes } };
  return [{ txIndex: 0, serialized: Buffer.from(getTransactionEncoder().encode(signed)).toString('hex'), txid: getBase58Decoder().decode(sig.signature) }];
}
