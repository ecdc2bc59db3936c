import type { Transaction } from '@stellar/stellar-base';
import { FeeBumpTransaction, Keypair, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-base';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { SignedTx, UnsignedWithdrawal, VerifiedSignature } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import { isFeeBump, stellarState } from './state.js';

/**
 * Adds the vault's decorated signature to the crafted envelope. `serialized` is the signed
 * TransactionEnvelope XDR in hex (the contract's hex convention); broadcast re-encodes it as
 * the base64 Horizon takes. The envelope must hash, on this network, to the payload's digest,
 * and spend from the vault whose key is the payload's. The signature was checked when it came
 * in, over that digest and against that key (src/ledger/signatures.ts, the one place
 * signatures are checked), so a signature for another envelope or network never reaches
 * combine, and it is not checked again.
 */
export function combine(ctx: StellarContext, unsigned: UnsignedWithdrawal, sigs: VerifiedSignature[]): SignedTx[] {
  const state = stellarState.decode(unsigned.state);
  const payload = unsigned.payloads[0];
  const envelope = unsigned.txs[0]?.serialized;
  if (!payload || !envelope || unsigned.payloads.length !== 1) throw new InvalidArgumentError('a Stellar withdrawal has exactly one payload');
  const sig = sigs.find((s) => s.payloadIndex === 0);
  if (!sig || sigs.length !== 1) throw new InvalidArgumentError(`expected one signature for payload 0, got ${sigs.length}`);
  if (sig.signature.length !== 64) throw new InvalidArgumentError(`an ed25519 signature has 64 bytes, got ${sig.signature.length}`);

  const tx = TransactionBuilder.fromXDR(xdr.TransactionEnvelope.fromXDR(envelope, 'hex'), ctx.passphrase);
  const hash = tx.hash();
  if (hash.toString('hex') !== payload.digest) throw new InvalidArgumentError('the stored envelope does not hash to the signed digest on this network');
  const key = Buffer.from(payload.publicKey, 'hex');
  const signer = StrKey.encodeEd25519PublicKey(key);
  // A fee-bump (speed-up) is paid and signed by the vault and wraps the vault's own signed transaction.
  const inner: Transaction = tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx;
  const payer = tx instanceof FeeBumpTransaction ? tx.feeSource : tx.source;
  if (tx instanceof FeeBumpTransaction !== isFeeBump(state)) throw new InvalidArgumentError('the stored envelope is not of the kind that was crafted');
  if (inner.source !== state.source || payer !== state.source || signer !== state.source || inner.sequence !== state.sequence) {
    throw new InvalidArgumentError('the stored envelope does not spend from the vault account it was crafted for');
  }
  tx.addDecoratedSignature(new xdr.DecoratedSignature({ hint: Keypair.fromPublicKey(signer).signatureHint(), signature: Buffer.from(sig.signature) }));
  return [{ txIndex: 0, serialized: tx.toEnvelope().toXDR('hex'), txid: hash.toString('hex') }];
}
