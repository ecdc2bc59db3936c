import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { AssetInfo, Balance } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { spendableUtxos } from './spendable.js';

/** BTC balance of each address under the unconfirmed-funds rule of `spendableUtxos`; the addresses asked together count as "own". */
export async function getBalances(ctx: BtcContext, addresses: string[], assets: AssetInfo[]): Promise<Balance[]> {
  const foreign = assets.find((a) => a.symbol !== ctx.nativeAsset.symbol);
  if (foreign) throw new InvalidArgumentError(`Bitcoin ledgers hold only BTC, not ${foreign.symbol}`);
  if (assets.length === 0 || addresses.length === 0) return [];
  const utxos = await spendableUtxos(ctx.backend, addresses, addresses);
  const sums = new Map(addresses.map((a) => [a, 0n]));
  for (const u of utxos) sums.set(u.address, (sums.get(u.address) ?? 0n) + u.value);
  return addresses.map((address) => ({ address, asset: ctx.nativeAsset.symbol, amount: sums.get(address) ?? 0n }));
}

export async function addressesUsed(ctx: BtcContext, addresses: string[]): Promise<boolean[]> {
  const used = await ctx.backend.addressesUsed(addresses);
  if (used) return used;
  const balances = await getBalances(ctx, addresses, [ctx.nativeAsset]);
  return balances.map((b) => b.amount > 0n);
}
