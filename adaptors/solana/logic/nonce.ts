import { createAddressWithSeed, type Address } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';

/**
 * Each vault's durable nonce account lives at an address derived from the vault's own
 * address with a fixed seed (createAccountWithSeed), so the vault alone signs its creation
 * and anyone can find it from the vault address.
 */
export const NONCE_SEED = 'byow-durable-nonce';

export function nonceAccountAddress(vault: string): Promise<Address> {
  return createAddressWithSeed({ baseAddress: vault as Address, programAddress: SYSTEM_PROGRAM_ADDRESS, seed: NONCE_SEED });
}

/** Reservation scope of one vault's nonce on one ledger. */
export function nonceScope(ledgerId: string, vault: string): string {
  return `${ledgerId}:nonce:${vault}`;
}
