import { getBytes, keccak256, Signature } from 'ethers';
import { VerificationError } from '../../../src/errors.js';
import type { SignedTx, UnsignedWithdrawal, VerifiedSignature } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import { signerOf } from './sender.js';
import { bare, ethereumState, toTransaction } from './state.js';

const hex = (bytes: Uint8Array): string => `0x${Buffer.from(bytes).toString('hex')}`;

/**
 * Attaches the one signature to the transaction rebuilt from state. The rebuilt unsigned
 * bytes must be the ones stored and signed, and the signature must recover the vault
 * address, so a tampered state or a signature by another key never leaves here.
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
  const tx = toTransaction(state);
  // Each getter of an ethers Transaction serializes it again: the unsigned bytes, their hash
  // and the signed bytes are taken once each.
  const unsignedSerialized = tx.unsignedSerialized;
  const preimage = bare(unsignedSerialized);
  const digest = keccak256(unsignedSerialized);
  if (preimage !== unsigned.txs[0]?.serialized || preimage !== payload.preimage || bare(digest) !== payload.digest) {
    throw new VerificationError('the transaction rebuilt from state is not the one that was signed', 'tx-mismatch', 422);
  }
  if (sig.signature.length !== 64) {
    throw new VerificationError(`a secp256k1 signature has 64 bytes, got ${sig.signature.length}`, 'malformed-signature', 422);
  }
  tx.signature = Signature.from({
    r: hex(sig.signature.subarray(0, 32)),
    s: hex(sig.signature.subarray(32)),
    yParity: sig.recoveryId,
  });
  // The signature recovers the vault over the digest of the bytes rebuilt here, whoever checked it before.
  const signer = signerOf(getBytes(digest), sig.signature, sig.recoveryId);
  if (!signer || signer !== state.from.toLowerCase()) {
    throw new VerificationError(
      `the signature recovers ${signer ?? 'no address'}, not the vault address ${state.from}`,
      'signer-mismatch',
      422,
    );
  }
  const serialized = tx.serialized;
  const txid = keccak256(serialized);
  ctx.assembled?.remember({ txid, serialized, from: state.from, nonce: tx.nonce });
  return [{ txIndex: 0, serialized, txid }];
}
