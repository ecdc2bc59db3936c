import { Account, FeeBumpTransaction, Operation, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-base';
import { ConflictError, InvalidArgumentError } from '../../../src/platform/errors.js';
import type { ReplacementInput, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import { singlePayloadWithdrawal } from '../../../src/ledger/single-payload.js';
import type { StellarContext } from '../context.js';
import { resolveFee } from './fees.js';
import { signingPayload, stellarState } from './state.js';

/** stellar-core's TransactionQueue FEE_MULTIPLIER: a queued transaction is replaced only by a fee-bump bidding 10x its fee rate. */
const REPLACE_MULTIPLIER = 10n;

/** The envelope as sent, the transaction it carries, and its bid per operation slot (a fee-bump has one slot more). */
function bidOf(ctx: StellarContext, hex: string): { inner: Transaction; rate: bigint } {
  const sent = TransactionBuilder.fromXDR(xdr.TransactionEnvelope.fromXDR(hex, 'hex'), ctx.passphrase);
  const inner = sent instanceof FeeBumpTransaction ? sent.innerTransaction : sent;
  const ops = BigInt(inner.operations.length);
  return { inner, rate: sent instanceof FeeBumpTransaction ? BigInt(sent.fee) / (ops + 1n) : BigInt(sent.fee) / ops };
}

/**
 * Speed-up: a fee-bump (CAP-15) around the signed transaction, paid and signed by the vault,
 * bidding at least 10x the queued rate (what stellar-core asks to replace it in its queue)
 * and at least the asked level (default HIGH). The inner transaction and its signature stay
 * as they are, so the payment, sequence number and time bounds cannot change.
 *
 * Cancel: see `cancel` below.
 */
export async function replace(ctx: StellarContext, input: ReplacementInput): Promise<UnsignedWithdrawal> {
  if (input.kind === 'cancel') return cancel(ctx, input);
  const signed = input.signed[0];
  const payload = input.unsigned.payloads[0];
  if (!signed || !payload) throw new ConflictError('the withdrawal has no signed transaction to wrap in a fee-bump', 'ERR_NOT_REPLACEABLE');
  const state = stellarState.decode(input.unsigned.state);
  const { inner, rate: current } = bidOf(ctx, signed.serialized);
  const baseFee = BigInt((await ctx.horizon.latestLedger()).base_fee_in_stroops);
  const minimum = REPLACE_MULTIPLIER * current > baseFee ? REPLACE_MULTIPLIER * current : baseFee;
  const asked = await resolveFee(ctx.horizon, input.fee ?? 'HIGH', baseFee);
  if (input.fee && asked < minimum) {
    throw new InvalidArgumentError(`fee ${asked} stroops per operation is below the replacement minimum of ${minimum} (10x the queued bid of ${current})`, {
      field: 'fee',
      minimum: minimum.toString(),
    });
  }
  const rate = asked > minimum ? asked : minimum;
  const bump = TransactionBuilder.buildFeeBumpTransaction(state.source, rate.toString(), inner, ctx.passphrase);
  return singlePayloadWithdrawal({
    ...signingPayload(bump),
    signer: payload,
    fee: BigInt(bump.fee),
    state: stellarState.encode({ ...state, feeBump: 'true' }),
    ...(input.unsigned.expiresAt ? { expiresAt: input.unsigned.expiresAt } : {}),
  });
}

/**
 * Cancel, the invalidation of the original: a transaction from the vault's account at the
 * original's own sequence number S holding one `bump_sequence` to S, paying nobody. Stellar
 * applies a transaction only at exactly the account's sequence + 1, and any applied transaction
 * (failed ones too) consumes its number, so of two transactions at S at most one ever applies:
 * - the cancel applies: the account is at S, the original (and any fee-bump of it) needs S - 1
 *   and can never apply; the withdrawal ends FAILED `cancelled`, the recipient got nothing;
 * - the original applies first (the same bytes sent from anywhere): the cancel can never apply,
 *   and the withdrawal follows the original to CONFIRMED.
 * Why at S and not "the account's next": a cancel at another number would not exclude the
 * original (at S + 1 it could only follow it; it cannot be below). Why bump to S and not past
 * it: a higher `bumpTo` would also void the vault's later withdrawals (S + 1, …) in flight. The
 * bump itself is a no-op (the number is already S once the transaction's own sequence is
 * consumed), chosen because it touches no balance, no trustline and no other account. It gets
 * its own time bounds (the quorum may take a while), bids the asked level (default HIGH), and is
 * signed through the custody service like any withdrawal. It cannot displace the original
 * from a stellar-core queue that holds it (only a fee-bump of the same transaction can); a
 * refused original is not in that node's queue.
 */
async function cancel(ctx: StellarContext, input: ReplacementInput): Promise<UnsignedWithdrawal> {
  const payload = input.unsigned.payloads[0];
  if (!payload) throw new ConflictError('the withdrawal has no transaction to cancel', 'ERR_NOT_REPLACEABLE');
  const state = stellarState.decode(input.unsigned.state);
  const sequence = BigInt(state.sequence);
  const baseFee = BigInt((await ctx.horizon.latestLedger()).base_fee_in_stroops);
  const fee = await resolveFee(ctx.horizon, input.fee ?? 'HIGH', baseFee);
  if (fee < baseFee) {
    throw new InvalidArgumentError(`fee ${fee} stroops is below the network's base fee of ${baseFee}`, { field: 'fee', minimum: baseFee.toString() });
  }
  const maxTime = Math.floor(Date.now() / 1000) + ctx.options.timeoutSeconds;
  // The builder adds one to the account's sequence, so it starts from the one before the original's.
  const tx = new TransactionBuilder(new Account(state.source, (sequence - 1n).toString()), {
    fee: fee.toString(),
    networkPassphrase: ctx.passphrase,
    timebounds: { minTime: 0, maxTime },
  })
    .addOperation(Operation.bumpSequence({ bumpTo: sequence.toString() }))
    .build();
  return singlePayloadWithdrawal({
    ...signingPayload(tx),
    signer: payload,
    fee,
    state: stellarState.encode({ source: state.source, sequence: state.sequence, scope: state.scope, maxTime: String(maxTime), creates: null }),
    expiresAt: maxTime * 1000,
  });
}

/** Why a submitted transaction is not in a ledger: a bid under what recent ledgers charged (surge pricing). */
export async function stuckReason(ctx: StellarContext, unsigned: UnsignedWithdrawal): Promise<string | undefined> {
  const envelope = unsigned.txs[0]?.serialized;
  if (!envelope) return undefined;
  const { rate } = bidOf(ctx, envelope);
  const stats = await ctx.horizon.feeStats();
  const market = BigInt(stats.fee_charged.p10 ?? stats.last_ledger_base_fee);
  return rate < market ? `its fee of ${rate} stroops per operation is under the ${market} that recent ledgers charged (surge pricing)` : undefined;
}
