import type { AdaptorDeps, AssetInfo } from '../../src/ledger/adaptor.js';
import type { HorizonClient } from './network/horizon.js';
import type { StellarOptions } from './options.js';

/** What every Stellar logic function gets: one ledger's settings and its Horizon client. */
export interface StellarContext {
  ledgerId: string;
  passphrase: string;
  options: StellarOptions;
  horizon: HorizonClient;
  deps: AdaptorDeps;
  nativeAsset: AssetInfo;
  /** Native first, then configured credit assets. */
  assets: AssetInfo[];
}
