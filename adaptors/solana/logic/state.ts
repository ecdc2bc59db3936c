import { z } from 'zod';
import { defineStateCodec, type StateOf } from '../../../src/ledger/state-codec.js';

/** What craft leaves for release, combine, broadcast and txStatus. */
export const solanaState = defineStateCodec(
  'Solana',
  z
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
    .strict(),
);

export type SolanaState = StateOf<typeof solanaState>;
