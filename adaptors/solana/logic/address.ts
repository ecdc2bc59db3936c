import { getAddressDecoder, isAddress } from '@solana/kit';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { PublicKey } from '../../../src/ledger/adaptor.js';

/** A Solana address is the base58 text of the 32-byte ed25519 public key; there is one format. */
export const ADDRESS_FORMATS = ['base58'] as const;

export function addressFromPublicKey(key: PublicKey, format: string = ADDRESS_FORMATS[0]): string {
  if (format !== 'base58')
    throw new InvalidArgumentError(`Unknown address format '${format}'. Valid values: ${ADDRESS_FORMATS.join(', ')}`, { valid: [...ADDRESS_FORMATS] });
  if (key.scheme !== 'ed25519' || key.bytes.length !== 32) throw new InvalidArgumentError('a Solana address needs a 32-byte ed25519 public key');
  return getAddressDecoder().decode(key.bytes);
}

/** Any base58 text of 32 bytes, on or off the curve (program-derived addresses hold funds too). */
export function isValidAddress(address: string): boolean {
  return typeof address === 'string' && isAddress(address);
}
