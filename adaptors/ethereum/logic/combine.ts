import { keccak256 } from 'ethers';
import { VerificationError } from '../../../src/platform/errors.js';
import type { SignedTx, UnsignedWithdrawal, VerifiedSignature } from '../../../src/ledger/adaptor.js';
import { isLowS } from '../../../src/ledger/signatures.js';
import type { EthContext } from '../context.js';
import { signedSerialized, unsignedSerialized } from './serialize.js';
import { bare, ethereumState } from './state.js';

/**
 * Attaches the one signature to the transaction rebuilt from state. The rebuilt unsigned
 * bytes must be the ones stored and signed, and the key the signature was checked against
 * must be the vault's, so a tampered state or a payload of another key never leaves here.
 *
 * `serialized` is 0x-prefixed: that is what `eth_sendRawTransaction` and every Ethereum
 * tool take, unlike the 0x-less unsigned hex in `txs`/`payloads`.
 */
export function combine(ctx: EthContext, unsigned: UnsignedWithdrawal, sigs: VerifiedSignature[]): SignedTx[] {
  const state = ethereumState.decode(unsigned.state);
  const payload = unsigned.payloads[0];
  const sig = sigs.find((s) => s.payloadIndex === 0);
  if (!payload || !sig || sigs.length !== 1 || unsigned.payloads.length !== 1) {
    throw new VerificationError(
      `an Ethereum withdrawal has one payload and takes one signature, got ${unsigned.payloads.length} and ${sigs.length}`,
      'signature-count',
      422,
    );
  }
  const rebuilt = unsignedSerialized(state);
  const preimage = bare(rebuilt);
  const digest = keccak256(rebuilt);
  if (preimage !== unsigned.txs[0]?.serialized || preimage !== payload.preimage || bare(digest) !== payload.digest) {
    throw new VerificationError('the transaction rebuilt from state is not the one that was signed', 'tx-mismatch', 422);
  }
  if (sig.signature.length !== 64) {
    throw new VerificationError(`a secp256k1 signature has 64 bytes, got ${sig.signature.length}`, 'malformed-signature', 422);
  }
  if (!isLowS(sig.signature)) throw new VerificationError('an Ethereum signature has a low s (EIP-2)', 'malformed-signature', 422);
  // The signature was checked when it came in, against this payload's digest and key, with
  // the recovery id that recovers that key (src/ledger/signatures.ts: the one place signatures
  // are checked; recovering again here was an eighth of the worker's time per withdrawal).
  // The digest is the rebuilt bytes' (above); the key must be the vault's.
  const signer = ctx.addresses.of(payload.publicKey);
  if (signer !== state.from.toLowerCase()) {
    throw new VerificationError(`the payload's key is the key of ${signer}, not of the vault address ${state.from}`, 'signer-mismatch', 422);
  }
  const serialized = signedSerialized(state, { rs: sig.signature, yParity: sig.recoveryId });
  const txid = keccak256(serialized);
  ctx.assembled.remember({ txid, serialized, from: state.from, nonce: Number(state.nonce) });
  return [{ txIndex: 0, serialized, txid }];
}
