import type { AdaptorDeps, AssetInfo } from '../../src/ledger/adaptor.js';
import type { ChainReads } from './network/chain-reads.js';
import type { JsonRpcClient } from './network/json-rpc.js';
import type { AssembledTxs } from './logic/assembled.js';
import type { Checksums, KeyAddresses } from './logic/address.js';
import type { EthereumOptions } from './options.js';

/** What every Ethereum logic function gets: one ledger's settings and its node client. */
export interface EthContext {
  ledgerId: string;
  chainId: number;
  options: EthereumOptions;
  rpc: JsonRpcClient;
  /** The reads of withdrawal crafting, once per block (fees, balances, nonces, gas). */
  reads: ChainReads;
  deps: AdaptorDeps;
  nativeAsset: AssetInfo;
  /** Transactions combine assembled in this process, so broadcast need not parse them again. */
  assembled: AssembledTxs;
  /** Addresses of the vault keys seen lately (combine checks each payload's key is the vault's). */
  addresses: KeyAddresses;
  /** EIP-55 spellings worked out lately, shared with the adaptor's address operations. */
  checksums: Checksums;
}
