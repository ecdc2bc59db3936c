import { StrKey } from '@stellar/stellar-base';
import { z } from 'zod';
import { httpUrl } from '../../src/platform/url-schemas.js';

const assetSchema = z.strictObject({
  /** Asset code: 1 to 12 letters or digits (alphanum4 up to 4, alphanum12 beyond). */
  code: z.string().regex(/^[A-Za-z0-9]{1,12}$/, 'a Stellar asset code is 1 to 12 letters or digits'),
  issuer: z.string().refine((s) => StrKey.isValidEd25519PublicKey(s), 'an asset issuer is a G… account id'),
});

export const stellarOptionsSchema = z.strictObject({
  /** Horizon base URL (public, testnet, a provider, or the local simulator). */
  horizonUrl: httpUrl(),
  /** Defaults from the ledger id (stellar, stellartest, stellardev); required for other ids. */
  networkPassphrase: z.string().min(1).optional(),
  /** Credit assets served by this ledger. */
  assets: z.array(assetSchema).default([]),
  /**
   * Time bounds of a withdrawal: it must reach the ledger within this many seconds of craft.
   * Long by default because quorum approval can take hours.
   */
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(86_400),
  /** Stellar closes ledgers with immediate finality; one ledger is final. */
  confirmations: z.number().int().min(1).default(1),
});

export type StellarOptions = z.infer<typeof stellarOptionsSchema>;
