import { z } from 'zod';
import { httpUrl } from '../../src/platform/url-schemas.js';

export const bitcoinOptionsSchema = z.strictObject({
  /** Defaults from the ledger id: btc mainnet, btctest testnet (testnet3), btcregtest regtest. */
  network: z.enum(['mainnet', 'testnet', 'testnet4', 'regtest']).optional(),
  /**
   * `esplora`: an Esplora REST API base URL (e.g. `https://blockstream.info/testnet/api`).
   * `core`: a Bitcoin Core JSON-RPC URL; no wallet needed, but `txStatus` of mined
   * transactions needs `txindex=1`. Flat fields (not a nested object) so the config loader's
   * censor, which reads top-level names, hides `url`, `username` and `password` in logs.
   */
  backend: z.enum(['esplora', 'core']).default('esplora'),
  url: httpUrl(),
  /** Core RPC credentials (or put them in the URL). */
  username: z.string().optional(),
  password: z.string().optional(),
  /** Confirmations after which a withdrawal is final; defaults to 1 on regtest, 3 elsewhere. */
  confirmations: z.number().int().min(1).optional(),
  /** How long crafted withdrawals hold their coins if never broadcast or released. */
  reservationTtlMs: z
    .number()
    .int()
    .min(1_000)
    .default(24 * 60 * 60 * 1000),
  defaultAddressFormat: z.enum(['p2wpkh', 'p2sh-p2wpkh', 'p2pkh']).default('p2wpkh'),
  /** sat/vB used when the back end has no estimate; defaults to 1 on regtest, none elsewhere (craft fails). */
  fallbackFeeRate: z.number().int().min(1).optional(),
  /**
   * Most inputs one withdrawal may spend: each input is one payload of the custody sign
   * request (the custody emulator takes at most 1,000). The standard transaction weight
   * (100,000 vbytes: ~1,460 P2WPKH inputs) bounds it too.
   */
  maxInputs: z.number().int().min(1).max(5_000).default(1_000),
  /** Ceiling on any fee rate, sat/vB: a guard against absurd estimates or typos in custom fees. */
  maxFeeRate: z.number().int().min(1).default(1_000),
});

export type BitcoinOptions = z.infer<typeof bitcoinOptionsSchema>;
