import { getAddress, getBytes, keccak256, type Transaction } from 'ethers';
import { secp256k1 } from '../../../src/ledger/secp256k1.js';

/**
 * The address that signed `tx`, recovered with libsecp256k1 or tiny-secp256k1
 * (src/ledger/secp256k1.ts). ethers' own `tx.from` recovers in plain JavaScript, several times
 * slower: per withdrawal it was the largest cost of the worker in a drain.
 * Undefined when the transaction carries no signature or the signature recovers no key.
 */
export function senderOf(tx: Transaction): string | undefined {
  const sig = tx.signature;
  if (!sig) return undefined;
  const compact = new Uint8Array(64);
  compact.set(getBytes(sig.r), 0);
  compact.set(getBytes(sig.s), 32);
  const signer = signerOf(getBytes(tx.unsignedHash), compact, sig.yParity);
  return signer && getAddress(signer);
}

/**
 * The address whose key made the 64-byte `r‖s` signature with `yParity` over `digest` (the
 * transaction's unsigned hash, when the caller has it already), lower-case (compare it so; the
 * checksum is a hash of its own), or undefined when it recovers no key.
 */
export function signerOf(digest: Uint8Array, compact: Uint8Array, yParity: 0 | 1): string | undefined {
  const key = secp256k1.recover(digest, compact, yParity, false);
  return key ? `0x${keccak256(key.subarray(1)).slice(-40)}` : undefined;
}
