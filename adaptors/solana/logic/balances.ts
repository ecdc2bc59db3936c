import type { AssetInfo, Balance } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';
import { associatedTokenAccount, tokenAmount } from './accounts.js';

/**
 * SOL (lamports) and SPL balances in one getMultipleAccounts round trip. A token balance is
 * what the owner's associated token account holds; other token accounts of the owner are not counted.
 */
export async function getBalances(ctx: SolanaContext, addresses: string[], assets: AssetInfo[]): Promise<Balance[]> {
  const wanted = addresses.flatMap((address) => assets.map((asset) => ({ address, asset })));
  const keys = await Promise.all(wanted.map(({ address, asset }) => (asset.native ? address : associatedTokenAccount(address, asset.contract as string))));
  const unique = [...new Set(keys)];
  const accounts = await ctx.rpc.getMultipleAccounts(unique);
  const byKey = new Map(unique.map((k, i) => [k, accounts[i] ?? null]));
  return wanted.map(({ address, asset }, i) => {
    const acc = byKey.get(keys[i] as string) ?? null;
    const amount = asset.native ? BigInt(acc?.lamports ?? 0) : tokenAmount(acc, asset.contract as string, `token account of ${address}`);
    return { address, asset: asset.symbol, amount };
  });
}
