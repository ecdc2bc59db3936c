import { decompileTransactionMessage, getCompiledTransactionMessageDecoder, getTransactionDecoder, type Instruction } from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, parseSetComputeUnitLimitInstruction, parseSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { ConflictError, InvalidArgumentError } from '../../../src/platform/errors.js';
import type { ReplacementInput, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import { singlePayloadWithdrawal } from '../../../src/ledger/single-payload.js';
import type { SolanaContext } from '../context.js';
import { LAMPORTS_PER_SIGNATURE, priorityLamports, resolvePriorityFee } from './fees.js';
import { computeBudget } from './instructions.js';
import { compileMessage, type Lifetime } from './message.js';
import { solanaState } from './state.js';

type Parsable = Parameters<typeof parseSetComputeUnitLimitInstruction>[0];

/**
 * A replacement of a sent transfer, on the same durable nonce, so that only one of the two can
 * ever land: the first to land advances the nonce, and the other's nonce is then gone for good.
 * - cancel: a transaction holding only AdvanceNonceAccount (authority and fee payer the vault):
 *   landed, it pays nobody and makes the original impossible; its fee is one signature.
 * - speed-up: the same instructions with a higher compute-unit price (at least one micro-lamport
 *   per unit over the original's, and at least the asked level, default HIGH). Solana keeps no
 *   mempool to replace in: both stay valid until one lands, and the leader takes either.
 * The setup (under a recent blockhash, valid about a minute) is not replaced: it lands or
 * expires on its own.
 */
export async function replace(ctx: SolanaContext, input: ReplacementInput): Promise<UnsignedWithdrawal> {
  const state = solanaState.decode(input.unsigned.state);
  const payload = input.unsigned.payloads[0];
  const stored = input.unsigned.txs[0]?.serialized;
  if (state.kind !== 'transfer' || !payload || !stored) {
    throw new ConflictError('only a transfer under the durable nonce can be replaced; the nonce setup lands or expires within a minute', 'ERR_NOT_REPLACEABLE');
  }
  const lifetime: Lifetime = { kind: 'nonce', nonce: state.lifetime, nonceAccount: state.nonceAccount };
  if (input.kind === 'cancel') {
    // A cancel of the cancel would be the very same transaction (same nonce, same instruction).
    if (instructionsOf(stored).length === 1) throw new ConflictError('the cancel is already out: another would be the same transaction', 'ERR_NOT_REPLACEABLE');
    const { message, unsignedTx } = compileMessage(state.vault, lifetime, []);
    return withdrawalOf(unsignedTx, message, payload, LAMPORTS_PER_SIGNATURE, state);
  }
  const { limit, micro, rest } = budgetOf(stored);
  const minimum = micro + 1n;
  const asked = await resolvePriorityFee(ctx, input.fee ?? 'HIGH', [state.vault, state.nonceAccount]);
  if (input.fee && asked < minimum) {
    throw new InvalidArgumentError(`fee ${asked} micro-lamports per compute unit is below the replacement minimum of ${minimum} (the original bids ${micro})`, {
      field: 'fee',
      minimum: minimum.toString(),
    });
  }
  const price = asked > minimum ? asked : minimum;
  const { message, unsignedTx } = compileMessage(state.vault, lifetime, [...computeBudget(limit, price), ...rest]);
  const fee = input.unsigned.fee - priorityLamports(micro, limit) + priorityLamports(price, limit);
  return withdrawalOf(unsignedTx, message, payload, fee, state);
}

function withdrawalOf(
  unsignedTx: Uint8Array,
  message: Uint8Array,
  signer: UnsignedWithdrawal['payloads'][number],
  fee: bigint,
  state: ReturnType<typeof solanaState.decode>,
): UnsignedWithdrawal {
  return singlePayloadWithdrawal({
    serialized: Buffer.from(unsignedTx).toString('hex'),
    signer,
    hashAlgorithm: 'PLAIN',
    preimage: Buffer.from(message).toString('hex'),
    fee,
    state: solanaState.encode(state),
  });
}

/** The original's compute-unit limit and price, and its instructions other than the nonce advance and the compute budget. */
function budgetOf(serialized: string): { limit: number; micro: bigint; rest: Instruction[] } {
  let limit: number | undefined;
  let micro = 0n;
  const rest: Instruction[] = [];
  instructionsOf(serialized).forEach((ix, i) => {
    if (ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      const kind = ix.data?.[0];
      if (kind === 2) limit = parseSetComputeUnitLimitInstruction(ix as Parsable).data.units;
      if (kind === 3) micro = BigInt(parseSetComputeUnitPriceInstruction(ix as Parsable).data.microLamports);
      return;
    }
    // The nonce advance comes first; compileMessage puts it back.
    if (i === 0 && ix.programAddress === SYSTEM_PROGRAM_ADDRESS) return;
    rest.push(ix);
  });
  if (limit === undefined) throw new ConflictError('the original transaction sets no compute-unit limit; it cannot be repriced', 'ERR_NOT_REPLACEABLE');
  return { limit, micro, rest };
}

/** The instructions of a stored transaction, the nonce advance first. */
function instructionsOf(serialized: string): readonly Instruction[] {
  const tx = getTransactionDecoder().decode(Buffer.from(serialized, 'hex'));
  return decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes)).instructions;
}
