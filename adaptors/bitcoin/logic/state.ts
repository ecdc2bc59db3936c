import { z } from 'zod';
import { defineStateCodec } from '../../../src/ledger/state-codec.js';
import { ADDRESS_FORMATS, type AddressFormat } from './address.js';

/** What `combine` and `release` need from `craft`, JSON-safe (satoshis as decimal strings). */
export interface BitcoinState {
  v: 1;
  ledgerId: string;
  feeRate: number;
  inputs: {
    txid: string;
    vout: number;
    value: string;
    address: string;
    format: AddressFormat;
    /** Compressed key hex. */
    publicKey: string;
    keyId: string;
    /** For a coin unconfirmed when crafted: what its transaction spends (`txid:vout`), to tell that transaction replaced from dropped. */
    parentInputs?: string[];
  }[];
  outputs: { address: string; value: string; change: boolean }[];
  /** `txid:vout` items held in Reservations under the withdrawal's reference. */
  reserved: string[];
}

const sats = z.string().regex(/^\d+$/);

// Loose: fields this schema does not name yet are kept as they were stored, not dropped.
const schema: z.ZodType<BitcoinState> = z.looseObject({
  v: z.literal(1),
  ledgerId: z.string(),
  feeRate: z.number().nonnegative(),
  inputs: z.array(
    z.looseObject({
      txid: z.string().regex(/^[0-9a-f]{64}$/),
      vout: z.number().int().nonnegative(),
      value: sats,
      address: z.string(),
      format: z.enum(ADDRESS_FORMATS),
      publicKey: z.string().regex(/^[0-9a-f]{66}$/),
      keyId: z.string(),
      parentInputs: z.array(z.string().regex(/^[0-9a-f]{64}:\d+$/)).optional(),
    }),
  ),
  outputs: z.array(z.looseObject({ address: z.string(), value: sats, change: z.boolean() })),
  reserved: z.array(z.string()),
});

/** Callers decode with `{ ledgerId }`: a state crafted for one ledger id is never read by another. */
export const bitcoinState = defineStateCodec('Bitcoin', schema);
