import { ConflictError, InvalidArgumentError } from '../../../src/platform/errors.js';
import type { ReplacementInput, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { unsignedFromState } from './craft.js';
import { dustThreshold } from './dust.js';
import { resolveFeeRate } from './fees.js';
import { bitcoinState, type BitcoinState } from './state.js';
import { signedWeight, vbytes } from './tx-size.js';
import { recipientScript } from './address.js';

/** Bitcoin Core's default incremental relay fee (-incrementalrelayfee), sat/vB: BIP125 rule 4's step. */
const INCREMENTAL_RELAY = 1n;

/** Virtual size of the signed transaction, rounded up: what the fee rate is paid on. */
export function signedVsize(ctx: BtcContext, state: BitcoinState): bigint {
  const outputs = state.outputs.map((o) => recipientScript(o.address, ctx.network)?.length ?? 34);
  return BigInt(
    vbytes(
      signedWeight(
        state.inputs.map((i) => i.format),
        outputs,
      ),
    ),
  );
}

/**
 * The transactions spending outputs of `txid` (`txid:vout` → spender, undefined where the back
 * end does not name it). Only asked of a transaction the back end has: Core's `gettxout`
 * answers "spent" for the outputs of one it does not.
 */
async function spentOutputs(ctx: BtcContext, txid: string, outputs: number): Promise<{ output: string; by?: string }[]> {
  if (!(await ctx.backend.txStatus(txid))) return [];
  const spends = await Promise.all(Array.from({ length: outputs }, (_, vout) => ctx.backend.outspend(txid, vout)));
  return spends.flatMap((o, vout) => (o.spent ? [{ output: `${txid}:${vout}`, ...(o.txid ? { by: o.txid } : {}) }] : []));
}

/**
 * Refuses to replace a transaction whose outputs are already spent (another withdrawal took
 * its unconfirmed change, or the recipient spent the payment): the replacement would evict
 * those spenders with it, and they could never be mined. BIP125 rule 3 would also make it pay
 * their fees, which the minimum below does not count.
 */
async function refuseIfSpent(ctx: BtcContext, input: ReplacementInput, outputs: number): Promise<void> {
  const spent = (await Promise.all(input.signed.map((s) => spentOutputs(ctx, s.txid, outputs)))).flat();
  if (spent.length === 0) return;
  const list = spent.map((s) => `${s.output} by ${s.by ?? 'a transaction the node does not name'}`).join(', ');
  throw new ConflictError(
    `the transaction cannot be ${input.kind === 'cancel' ? 'cancelled' : 'sped up'}: its outputs are already spent (${list}), and a replacement would evict the transaction(s) spending them; wait for it to be mined`,
    'ERR_NOT_REPLACEABLE',
  );
}

/**
 * A BIP125 replacement from the same inputs (they signal RBF): the same payment with a higher
 * fee taken from the change (speed-up), or everything back to the vault's change address
 * (cancel). Rules 3 and 4: the new absolute fee is at least the old one plus the incremental
 * relay fee for the new size, and the asked rate (default HIGH) applies when higher. No new
 * inputs are added: a change too small for the higher fee is a 409, and so is a transaction
 * whose outputs are already spent.
 */
export async function replace(ctx: BtcContext, input: ReplacementInput): Promise<UnsignedWithdrawal> {
  const old = bitcoinState.decode(input.unsigned.state, { ledgerId: ctx.ledgerId });
  await refuseIfSpent(ctx, input, old.outputs.length);
  const oldFee = input.unsigned.fee;
  const rate = BigInt(await resolveFeeRate(ctx, input.fee ?? 'HIGH'));
  const total = old.inputs.reduce((s, i) => s + BigInt(i.value), 0n);
  let outputs: BitcoinState['outputs'];
  if (input.kind === 'cancel') {
    if (!recipientScript(input.source.changeAddress, ctx.network))
      throw new InvalidArgumentError(`change address '${input.source.changeAddress}' is not valid here`);
    outputs = [{ address: input.source.changeAddress, value: '0', change: true }];
  } else {
    outputs = old.outputs.map((o) => ({ ...o }));
  }
  const size = (outs: BitcoinState['outputs']) => signedVsize(ctx, { ...old, outputs: outs });
  const minimum = (outs: BitcoinState['outputs']) => oldFee + INCREMENTAL_RELAY * size(outs);
  const feeFor = (outs: BitcoinState['outputs']) => {
    const asked = rate * size(outs);
    if (input.fee && asked < minimum(outs)) {
      const minRate = (minimum(outs) + size(outs) - 1n) / size(outs);
      throw new InvalidArgumentError(
        `fee ${rate} sat/vB is below the replacement minimum of ${minRate} sat/vB (BIP125: old fee ${oldFee} sat + ${INCREMENTAL_RELAY} sat/vB)`,
        {
          field: 'fee',
          minimum: minRate.toString(),
        },
      );
    }
    return asked > minimum(outs) ? asked : minimum(outs);
  };
  let fee = feeFor(outputs);
  const paid = outputs.filter((o) => !o.change).reduce((s, o) => s + BigInt(o.value), 0n);
  let rest = total - paid - fee;
  const changeAt = outputs.findIndex((o) => o.change);
  if (changeAt >= 0) {
    const script = recipientScript((outputs[changeAt] as BitcoinState['outputs'][number]).address, ctx.network) as Uint8Array;
    if (rest < dustThreshold(script)) {
      // A cancel, or a consolidation (its one output is the vault's own): nothing would be left to send.
      if (input.kind === 'cancel' || outputs.length === 1) {
        throw new ConflictError(`the inputs (${total} sat) cannot pay a ${input.kind} fee of ${fee} sat and leave a spendable output`, 'ERR_NOT_REPLACEABLE');
      }
      // The change cannot stay: without it the transaction is smaller and pays the rest as fee.
      outputs = outputs.filter((o) => !o.change);
      fee = feeFor(outputs);
      rest = total - paid - fee;
    } else {
      (outputs[changeAt] as BitcoinState['outputs'][number]).value = rest.toString();
      rest = 0n;
    }
  }
  if (rest < 0n) {
    throw new ConflictError(
      `the withdrawal's change cannot pay a replacement fee of ${fee} sat (it pays ${oldFee} sat now); no inputs are added to a replacement`,
      'ERR_NOT_REPLACEABLE',
    );
  }
  fee += rest;
  const state: BitcoinState = { ...old, outputs, feeRate: Number((fee + size(outputs) - 1n) / size(outputs)) };
  return unsignedFromState(ctx, state, fee);
}

/** Why a pooled transaction is not mined: its rate under what the next blocks take now. */
export async function stuckReason(ctx: BtcContext, unsigned: UnsignedWithdrawal): Promise<string | undefined> {
  const state = bitcoinState.decode(unsigned.state, { ledgerId: ctx.ledgerId });
  const rate = Number(unsigned.fee) / Number(signedVsize(ctx, state));
  const market = await ctx.backend.feeRate(3);
  if (market !== undefined && rate < market) return `its fee rate of ${rate.toFixed(1)} sat/vB is under the ${market.toFixed(1)} sat/vB the next blocks take`;
  return undefined;
}
