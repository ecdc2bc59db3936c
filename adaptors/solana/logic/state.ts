import { z } from 'zod';
import { PermanentLedgerError } from '../../../src/errors.js';
import type { Json } from '../../../src/ledger/adaptor.js';

/** What craft leaves for release, combine, broadcast and txStatus; checked with zod when read back. */
export const solanaStateSchema = z
  .object({
    kind: z.enum(['transfer', 'nonce-setup']),
    /** The vault's address: fee payer, signer and nonce authority. */
    vault: z.string(),
    nonceAccount: z.string(),
    /** The durable nonce the transaction carries (transfers); the blockhash (setup). */
    lifetime: z.string(),
    /** Reservation scope and item held from craft until release. */
    scope: z.string(),
    claim: z.string(),
    /** Setup only: the last block height at which its blockhash is accepted. */
    lastValidBlockHeight: z.number().int().nonnegative().optional(),
  })
  .strict();

export type SolanaState = z.infer<typeof solanaStateSchema>;

export function readState(state: Json): SolanaState {
  const parsed = solanaStateSchema.safeParse(state);
  // A state that does not parse can never become a valid transaction: fail for good, not retry.
  if (!parsed.success) throw new PermanentLedgerError(`not a Solana withdrawal state: ${parsed.error.message}`, 'ERR_BAD_STATE');
  return parsed.data;
}
