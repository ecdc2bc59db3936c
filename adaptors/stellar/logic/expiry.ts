import { FeeBumpTransaction, TransactionBuilder, xdr } from '@stellar/stellar-base';
import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import type { HorizonLedger, HorizonTransaction } from '../network/horizon.js';
import { stellarState } from './state.js';

/**
 * How long after the upper time bound a transaction that is still not found is taken as
 * expired without a proof (below) from an instance known to be past the bound. It assumes that
 * no Horizon instance behind the configured URL answers from more than an hour behind the
 * network. Only reached when every proof is missing: a proxy strips `Latest-Ledger`, the
 * instances that answer keep lagging, or the source account is gone (merged), so there is no
 * sequence number to read. Without it such a withdrawal would be watched forever.
 */
export const UNPROVEN_EXPIRY_GRACE_MS = 60 * 60_000;

/** Expired, proven by ledger `proof` (closed after the bound), with `latest` the newest closed ledger: the proof's confirmations. */
const expired = (latest: HorizonLedger, proof: number, reason = 'expired: time bounds passed'): TxStatus => ({
  state: 'failed',
  confirmations: 0,
  reason,
  proofConfirmations: confirmationsOf(latest, proof),
});

/** Confirmations of closed ledger `sequence` as of `latest` (at least 1: it closed; another instance may be ahead of `latest`). */
export function confirmationsOf(latest: HorizonLedger, sequence: number): number {
  return Math.max(1, latest.sequence - sequence + 1);
}

const UNKNOWN: TxStatus = { state: 'unknown', confirmations: 0 };
const PENDING: TxStatus = { state: 'pending', confirmations: 0 };

/** History pages read, newest first, to find the transaction that consumed a sequence number. */
export const HISTORY_PAGE_SIZE = 200;
export const HISTORY_PAGES = 5;

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
 *    a ledger, ours (and any fee-bump of it) was in no ledger up to it. Spent: which
 *    transaction spent it is read from the account's history (`spentBy`).
 * 3. Neither proof (header stripped or behind), or no account to read (merged): `unknown` (the
 *    envelope is past its bound, so sending it again is harmless) until the network is
 *    UNPROVEN_EXPIRY_GRACE_MS past the bound with the sequence number still unspent (or the
 *    account still missing), then expired.
 */
export async function notFoundAfterBound(
  ctx: StellarContext,
  txid: string,
  unsigned: UnsignedWithdrawal,
  expiresAt: number,
  latest: HorizonLedger,
  notFoundAsOf: number | undefined,
): Promise<TxStatus> {
  const pastBound = (sequence: number | undefined) => closedAfter(ctx, sequence, latest, expiresAt);
  if (notFoundAsOf !== undefined && (await pastBound(notFoundAsOf))) return expired(latest, notFoundAsOf);
  const pastGrace = Date.parse(latest.closed_at) > expiresAt + UNPROVEN_EXPIRY_GRACE_MS;
  const { source, sequence } = stellarState.decode(unsigned.state);
  const account = await ctx.horizon.accountAsOf(source);
  // A missing account (merged) says nothing about whether the transaction applied before it
  // went; the lookup by hash would have found it, unless it lags by more than the grace.
  if (!account.value) {
    return pastGrace ? expired(latest, latest.sequence, 'expired: time bounds passed; the source account no longer exists') : UNKNOWN;
  }
  const spent = BigInt(account.value.sequence) >= BigInt(sequence);
  if (spent) return spentBy(ctx, txid, unsigned, source, BigInt(sequence), latest);
  if (account.latestLedger !== undefined && (await pastBound(account.latestLedger))) return expired(latest, account.latestLedger);
  // The bound passed in `latest`; that the transaction is in no ledger before it rests on the
  // grace (no instance an hour behind), the proof this fallback stands on.
  return pastGrace ? expired(latest, latest.sequence) : UNKNOWN;
}

/**
 * Before the bound: the transaction is not found, but the source account's sequence number
 * (as of a closed ledger) may already be at or past ours, taken by another transaction, which
 * ours can then never follow. Which one, from the account's history (`spentBy`); unspent, it can
 * still land: `unknown` (sent again).
 */
export async function notFoundBeforeBound(ctx: StellarContext, txid: string, unsigned: UnsignedWithdrawal, latest: HorizonLedger): Promise<TxStatus> {
  const { source, sequence } = stellarState.decode(unsigned.state);
  const account = await ctx.horizon.account(source);
  if (!account || BigInt(account.sequence) < BigInt(sequence)) return UNKNOWN;
  return spentBy(ctx, txid, unsigned, source, BigInt(sequence), latest);
}

/**
 * Our sequence number `n` is spent but the lookup by hash did not find our transaction: which
 * transaction spent it, from the source account's history (newest first; a record names the
 * (inner) transaction's source and sequence number, its `hash` is the outer one of a
 * fee-bump, `inner_transaction.hash` the wrapped one's). A record, once visible, never changes:
 *
 * - Ours (`hash` or inner hash is `txid`): it landed and the lookup's instance lags: `pending`.
 * - Our own transaction in another envelope: for a fee-bump attempt, the original it wraps
 *   landed unbumped (`hash` is the inner hash) or inside another fee-bump (inner hash): the
 *   payment went through. `failed` with `spentBy` that transaction, as Ethereum's original is
 *   once its speed-up is mined: the withdrawal follows the attempt that landed (or revives it).
 * - Any other: it took the number and ours can never apply: `failed`, replaced, `spentBy` it,
 *   with the confirmations of its ledger as the proof's (the pipeline fails the withdrawal as a
 *   conflict once every attempt is lost, or follows it when the taker is its own cancel).
 * - None visible (the history's instance lags too, or the number was spent further back than
 *   the pages read, or skipped by a bump_sequence): `pending`, looked at again later.
 */
async function spentBy(ctx: StellarContext, txid: string, unsigned: UnsignedWithdrawal, source: string, n: bigint, latest: HorizonLedger): Promise<TxStatus> {
  const used = await transactionAt(ctx, source, n);
  if (!used) return PENDING;
  const hashes = [used.hash, used.inner_transaction?.hash];
  if (hashes.includes(txid)) return PENDING;
  const inner = innerHashOf(ctx, unsigned);
  const by = `replaced: sequence ${n} used by transaction ${used.hash}`;
  const reason =
    inner === undefined || inner === txid || !hashes.includes(inner)
      ? by
      : used.hash === inner
        ? `${by}, the one this fee-bump wraps, which landed without it`
        : `${by}, another fee-bump of the one this fee-bump wraps (${inner})`;
  // The ledger that holds the taker proves it; a closed ledger is final on Stellar (SCP), so its
  // confirmations reach the usual threshold of 1 at once.
  return { state: 'failed', confirmations: 0, reason, spentBy: used.hash, proofConfirmations: confirmationsOf(latest, used.ledger) };
}

/**
 * The transaction of `source` that consumed sequence number `n`, if the history shows it
 * within HISTORY_PAGES pages. The account's own sequence numbers fall as the history goes
 * back (other records, where it only pays a fee-bump or receives, are skipped), so the search
 * stops at the first one below `n`.
 */
async function transactionAt(ctx: StellarContext, source: string, n: bigint): Promise<HorizonTransaction | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const records = await ctx.horizon.accountTransactions(source, HISTORY_PAGE_SIZE, cursor);
    for (const r of records) {
      if (r.source_account !== source || !/^\d{1,19}$/.test(r.source_account_sequence ?? '')) continue;
      const seq = BigInt(r.source_account_sequence);
      if (seq === n) return r;
      if (seq < n) return undefined;
    }
    cursor = records[records.length - 1]?.paging_token;
    if (records.length < HISTORY_PAGE_SIZE || !cursor) return undefined;
  }
  return undefined;
}

/** The hash of the transaction an attempt's envelope carries: the wrapped one for a fee-bump, else its own. */
function innerHashOf(ctx: StellarContext, unsigned: UnsignedWithdrawal): string | undefined {
  const envelope = unsigned.txs[0]?.serialized;
  if (!envelope) return undefined;
  const tx = TransactionBuilder.fromXDR(xdr.TransactionEnvelope.fromXDR(envelope, 'hex'), ctx.passphrase);
  return (tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx).hash().toString('hex');
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
