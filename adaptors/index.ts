/**
 * The ledger families this service knows. Adding a ledger family is one line here
 * and one folder beside this file.
 */
import type { LedgerFamily } from '../src/ledger/adaptor.js';
import { bitcoinFamily } from './bitcoin/index.js';
import { ethereumFamily } from './ethereum/index.js';
import { solanaFamily } from './solana/index.js';
import { stellarFamily } from './stellar/index.js';

// Each family validates its own options with its schema before create() sees them, so the
// widening to LedgerFamily<unknown> is sound.
export const families: readonly LedgerFamily[] = [
  ethereumFamily as LedgerFamily,
  bitcoinFamily as LedgerFamily,
  stellarFamily as LedgerFamily,
  solanaFamily as LedgerFamily,
];
