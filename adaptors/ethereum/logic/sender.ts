import { getBytes, type Transaction } from 'ethers';
import { addressOfPoint } from './address.js';
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
  const key = secp256k1.recover(getBytes(tx.unsignedHash), compact, sig.yParity, false);
  return key ? addressOfPoint(key) : undefined;
}
