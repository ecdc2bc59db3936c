import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { AssetInfo } from '../../../src/ledger/adaptor.js';
import type { SolanaOptions } from '../options.js';

export const SOL: AssetInfo = { symbol: 'SOL', decimals: 9, native: true };

/** Configured SPL tokens as assets; `contract` is the mint address. */
export function tokenAssets(tokens: SolanaOptions['tokens']): AssetInfo[] {
  return tokens.map((t) => ({ symbol: t.symbol, decimals: t.decimals, native: false, contract: t.mint }));
}

/** The configured asset a request names, checked against this ledger's list. */
export function knownAsset(assets: AssetInfo[], asset: AssetInfo): AssetInfo {
  const found = assets.find((a) => a.symbol === asset.symbol && a.contract === asset.contract);
  if (!found) throw new InvalidArgumentError(`asset ${asset.symbol} is not served here. Valid values: ${assets.map((a) => a.symbol).join(', ')}`);
  return found;
}
