import type { FeeBumpTransaction, Transaction } from '@stellar/stellar-base';
import { z } from 'zod';
import { defineStateCodec, type StateOf } from '../../../src/ledger/state-codec.js';

const int64 = z.string().regex(/^\d+$/);

/** What craft leaves for release, combine, broadcast and replace; JSON-safe (int64 as decimal strings). */
export const stellarState = defineStateCodec(
  'Stellar',
  z.object({
    /** `G…` account that pays and signs. */
    source: z.string(),
    /** Reserved sequence number. */
    sequence: int64,
    /** Reservation scope `${ledgerId}:${source}`. */
    scope: z.string(),
    /** Upper time bound, unix seconds. */
    maxTime: int64,
    /** Account this withdrawal creates (`create_account`), held so no other withdrawal creates it too; null (or absent in older states) otherwise. */
    creates: z.string().nullable().default(null),
    /** A speed-up's state: its envelope is a fee-bump around the signed original. */
    feeBump: z.literal('true').optional(),
  }),
);

export type StellarState = StateOf<typeof stellarState>;

/** Whether the state is a speed-up's: its envelope is a fee-bump around the signed original. */
export function isFeeBump(state: StellarState): boolean {
  return state.feeBump === 'true';
}

/** What a Stellar transaction (or its fee bump) is as a withdrawal: its envelope, and the hash the vault signs over its signature base. */
export function signingPayload(tx: Transaction | FeeBumpTransaction): { serialized: string; hashAlgorithm: 'SHA256'; digest: string; preimage: string } {
  return { serialized: tx.toEnvelope().toXDR('hex'), hashAlgorithm: 'SHA256', digest: tx.hash().toString('hex'), preimage: tx.signatureBase().toString('hex') };
}
