import type { AdaptorDeps, AssetInfo } from '../../src/ledger/adaptor.js';
import type { SolanaRpc } from './network/rpc.js';
import type { SolanaOptions } from './options.js';

/** What every Solana logic function gets: one ledger's settings and its RPC client. */
export interface SolanaContext {
  ledgerId: string;
  /** Genesis hash the RPC must report, for the public networks. */
  genesisHash?: string;
  options: SolanaOptions;
  rpc: SolanaRpc;
  deps: AdaptorDeps;
  /** SOL first, then the configured SPL tokens (`contract` is the mint). */
  assets: AssetInfo[];
}
