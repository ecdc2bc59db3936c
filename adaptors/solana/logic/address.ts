import { address as toAddress, getAddressDecoder, isAddress, isOffCurveAddress } from '@solana/kit';
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

/**
 * Refuses `owner` (who would own what a withdrawal pays) when it is off the ed25519 curve, unless
 * the request consented: no private key exists for such an address (a program-derived address,
 * such as a token account's own address), so only its program could ever move what it is paid.
 * spl-token refuses such owners by default for the same reason (`TokenOwnerOffCurveError`).
 */
export function checkOwnerOnCurve(owner: string, allowOffCurve: boolean, what: string): void {
  if (allowOffCurve || !isOffCurveAddress(toAddress(owner))) return;
  throw new InvalidArgumentError(
    `${what} ${owner} is off the ed25519 curve: no private key exists for it (a program-derived address), so only its program could move what it is paid. ` +
      "Send to the owner's wallet address, or set allowOffCurveRecipient: true if a program is meant to hold it",
    { field: 'recipientAddress' },
  );
}
