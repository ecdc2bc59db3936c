import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import type { HorizonLedger } from '../network/horizon.js';
import { stellarState } from './state.js';

/**
 * How long after the upper time bound a transaction that is still not found is taken as
 * expired without a proof (below) from an instance known to be past the bound. It assumes that
 * no Horizon instance behind the configured URL answers from more than an hour behind the
 * network. Only reached when every proof is missing: a proxy strips `Latest-Ledger`, or the
 * instances that answer keep lagging. Without it such a withdrawal would be watched forever.
 */
export const UNPROVEN_EXPIRY_GRACE_MS = 60 * 60_000;

const EXPIRED: TxStatus = { state: 'failed', confirmations: 0, reason: 'expired: time bounds passed' };
const UNKNOWN: TxStatus = { state: 'unknown', confirmations: 0 };
const PENDING: TxStatus = { state: 'pending', confirmations: 0 };

/**
 * What a transaction is that Horizon did not find, now that `latest` closed after its upper
 * time bound (`expiresAt`, ms). No ledger closing after the bound can include it, so it has
 * expired if it is in no ledger up to one that closed after the bound. But a "not found" only
 * speaks for the ledgers the answering instance had ingested, and behind a load balancer that
 * need not be the instance that answered `latest`: a transaction that landed just before the
 * bound would be failed while its payment went through, and a FAILED withdrawal may be paid
 * again by the integrator. So expiry is concluded only from an answer whose own instance had
 * ingested a ledger that closed after the bound (its `Latest-Ledger`), in this order:
 *
 * 1. The transaction lookup's own "not found", when it carries `Latest-Ledger` (Horizon does
 *    not set it on `/transactions/{hash}` today; a Horizon or proxy that does is used).
 * 2. The source account's sequence number (`/accounts/{id}` does carry `Latest-Ledger`, read in
 *    the same database transaction as the account). Any applied transaction, failed ones too,
 *    spends its sequence number, and only at exactly the account's next: below ours as of such
 *    a ledger, ours (and any fee-bump of it) was in no ledger up to it. Spent: it is in a
 *    ledger the transaction lookup's instance has not caught up with, so `pending`; nothing but
 *    a transaction this service did not build could have taken the number instead, and that
 *    is left to an operator (the withdrawal is marked stuck), never guessed as failed.
 * 3. Neither proof (header stripped or behind): `unknown` (the envelope is past its bound, so
 *    sending it again is harmless) until the network is UNPROVEN_EXPIRY_GRACE_MS past the bound
 *    with the sequence number still unspent, then expired.
 */
export async function notFoundAfterBound(
  ctx: StellarContext,
  unsigned: UnsignedWithdrawal,
  expiresAt: number,
  latest: HorizonLedger,
  notFoundAsOf: number | undefined,
): Promise<TxStatus> {
  const pastBound = (sequence: number | undefined) => closedAfter(ctx, sequence, latest, expiresAt);
  if (await pastBound(notFoundAsOf)) return EXPIRED;
  const { source, sequence } = stellarState.decode(unsigned.state);
  const account = await ctx.horizon.accountAsOf(source);
  // A missing account (merged) says nothing about whether the transaction applied before.
  if (!account.value) return UNKNOWN;
  const spent = BigInt(account.value.sequence) >= BigInt(sequence);
  if (spent) return PENDING;
  if (await pastBound(account.latestLedger)) return EXPIRED;
  return Date.parse(latest.closed_at) > expiresAt + UNPROVEN_EXPIRY_GRACE_MS ? EXPIRED : UNKNOWN;
}

/**
 * Whether ledger `sequence` closed after `bound`, given that `latest` did: at or above it
 * (close times only grow), or by its own record, immutable whichever instance serves it.
 */
async function closedAfter(ctx: StellarContext, sequence: number | undefined, latest: HorizonLedger, bound: number): Promise<boolean> {
  if (sequence === undefined) return false;
  if (sequence >= latest.sequence) return true;
  const ledger = await ctx.horizon.ledger(sequence);
  return ledger !== undefined && Date.parse(ledger.closed_at) > bound;
}
