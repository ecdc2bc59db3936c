import { UpstreamError } from '../../../src/platform/errors.js';
import type { UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import { stellarState } from './state.js';

/** The source account and the withdrawal's sequence number: its place in the account's order. */
export function sendOrder(unsigned: UnsignedWithdrawal): { account: string; sequence: bigint } {
  const s = stellarState.decode(unsigned.state);
  return { account: s.source, sequence: BigInt(s.sequence) };
}

/** The account's sequence + 1: Stellar applies a transaction only at exactly that number. */
export async function nextSequence(ctx: StellarContext, account: string): Promise<bigint> {
  const a = await ctx.horizon.account(account);
  if (!a) throw new UpstreamError(`${ctx.ledgerId}: the sending account ${account} does not exist`, true);
  return BigInt(a.sequence) + 1n;
}
