import type { EthContext } from '../context.js';

/** Reservation scope of one account's nonces: per ledger, since chains share addresses. */
export function nonceScope(ctx: EthContext, from: string): string {
  return `${ctx.ledgerId}:${from.toLowerCase()}`;
}

/** Raw `pending` count: ethers' provider caches nonces for 250 ms, which hands out duplicates. */
export async function pendingNonce(ctx: EthContext, address: string): Promise<bigint> {
  return BigInt(await ctx.rpc.call<string>('eth_getTransactionCount', [address, 'pending']));
}
