import { FeeBumpTransaction, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
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
 * Cancel is refused (409): stellar-core's queue holds one transaction per account sequence
 * number and lets only a fee-bump of that same transaction replace it, so no other
 * transaction can take the number while the original waits; it ends FAILED (expired) once
 * its time bounds pass, or can be sped up.
 */
export async function replace(ctx: StellarContext, input: ReplacementInput): Promise<UnsignedWithdrawal> {
  if (input.kind === 'cancel') {
    throw new ConflictError(
      'a sent Stellar transaction cannot be cancelled: the network queue lets only a fee-bump of the same transaction take its sequence number; speed it up, or it ends FAILED once its time bounds pass',
      'ERR_NOT_REPLACEABLE',
    );
  }
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

/** Why a submitted transaction is not in a ledger: a bid under what recent ledgers charged (surge pricing). */
export async function stuckReason(ctx: StellarContext, unsigned: UnsignedWithdrawal): Promise<string | undefined> {
  const envelope = unsigned.txs[0]?.serialized;
  if (!envelope) return undefined;
  const { rate } = bidOf(ctx, envelope);
  const stats = await ctx.horizon.feeStats();
  const market = BigInt(stats.fee_charged.p10 ?? stats.last_ledger_base_fee);
  return rate < market ? `its fee of ${rate} stroops per operation is under the ${market} that recent ledgers charged (surge pricing)` : undefined;
}
