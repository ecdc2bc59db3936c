import type { Network } from 'bitcoinjs-lib';
import type { AdaptorDeps, AssetInfo } from '../../src/ledger/adaptor.js';
import type { BitcoinNetworkName } from './ledgers.js';
import type { BitcoinBackend } from './network/backend.js';
import type { BitcoinOptions } from './options.js';
import type { Turns } from '../../src/platform/turns.js';

/** What every Bitcoin logic function gets: one ledger's settings and its back end. */
export interface BtcContext {
  ledgerId: string;
  networkName: BitcoinNetworkName;
  network: Network;
  options: BitcoinOptions;
  backend: BitcoinBackend;
  deps: AdaptorDeps;
  nativeAsset: AssetInfo;
  /** Reservation scope of this ledger's coins (`txid:vout` items). */
  reservationScope: string;
  /** Confirmations after which a withdrawal is final. */
  confirmations: number;
  /** A vault's coin choices in this process, one at a time (craft.ts). */
  coinTurns: Turns;
}
