import type { AdaptorDeps, AssetInfo } from '../../src/ledger/adaptor.js';
import type { JsonRpcClient } from './network/json-rpc.js';
import type { EthereumOptions } from './options.js';

/** What every Ethereum logic function gets: one ledger's settings and its node client. */
export interface EthContext {
  ledgerId: string;
  chainId: number;
  options: EthereumOptions;
  rpc: JsonRpcClient;
  deps: AdaptorDeps;
  nativeAsset: AssetInfo;
}
