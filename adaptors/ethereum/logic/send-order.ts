import type { UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import { pendingNonce } from './nonce.js';
import { ethereumState } from './state.js';

/** The vault's address and the withdrawal's nonce: its place in the account's order. */
export function sendOrder(unsigned: UnsignedWithdrawal): { account: string; sequence: bigint } {
  const s = ethereumState.decode(unsigned.state);
  return { account: s.from, sequence: BigInt(s.nonce) };
}

/** The node's pending nonce: mined transactions plus those in its pool. */
export function nextSequence(ctx: EthContext, account: string): Promise<bigint> {
  return pendingNonce(ctx, account);
}
