import { extractBaseAddress } from '@stellar/stellar-base';
import type { AssetInfo, Balance } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import type { HorizonAccount } from '../network/horizon.js';
import { findBalance, parseStroops, toSdkAsset } from './assets.js';

/** Horizon has no batch account endpoint; this bounds the parallel requests instead. */
const PARALLEL = 8;

/**
 * Balances as Horizon reports them: the total, reserve included (craft checks what is
 * spendable). An account that does not exist yet, or has no trustline, holds zero.
 * A muxed `M…` address reports its underlying account.
 */
export async function getBalances(ctx: StellarContext, addresses: string[], assets: AssetInfo[]): Promise<Balance[]> {
  const sdkAssets = assets.map((a) => toSdkAsset(ctx.assets, a));
  const ids = [...new Set(addresses.map((a) => extractBaseAddress(a)))];
  const accounts = new Map<string, HorizonAccount | undefined>();
  for (let i = 0; i < ids.length; i += PARALLEL) {
    const chunk = ids.slice(i, i + PARALLEL);
    const found = await Promise.all(chunk.map((id) => ctx.horizon.account(id)));
    chunk.forEach((id, j) => accounts.set(id, found[j]));
  }
  return addresses.flatMap((address) => {
    const account = accounts.get(extractBaseAddress(address));
    return assets.map((asset, k) => {
      const line = account && findBalance(account, sdkAssets[k]!);
      return { address, asset: asset.symbol, amount: line ? parseStroops(line.balance) : 0n };
    });
  });
}
