import coinSelect from 'coinselect';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import type { Utxo } from '../network/backend.js';
import type { AddressFormat } from './address.js';
import { dustThreshold } from './dust.js';
import { emptyTally, inputWeight, MAX_STANDARD_TX_WEIGHT, tallyWeight, vbytes, type InputTally } from './tx-size.js';

export interface Candidate {
  utxo: Utxo;
  format: AddressFormat;
}

export type Selection = { ok: true; inputs: Candidate[]; change: bigint; fee: bigint } | { ok: false; fee: bigint; available: bigint };

/**
 * Bytes coinselect should count for each input type: its non-witness size minus the 41 it
 * adds itself, plus witness bytes / 4, rounded up for a 73-byte high-R DER signature and
 * the SegWit marker, so the fee is never below the real virtual size times the rate.
 */
const INPUT_EXTRA_BYTES: Record<AddressFormat, number> = {
  p2wpkh: 28, // witness 1+1+73+1+33 = 109 WU → 27.25 vB, +0.5 vB marker/flag
  'p2sh-p2wpkh': 51, // scriptSig 23 bytes + witness as above
  p2pkh: 108, // scriptSig 1+73+1+33
};

/** coinselect's size of an input (its 41 bytes of outpoint, sequence and script length, plus the script bytes it is told). */
const COINSELECT_INPUT_BASE = 41;

/**
 * Chooses coins with `coinselect` (the bitcoinjs project's own selector: blackjack, then
 * accumulative) and applies the dust rule coinselect does not know: change below the dust
 * threshold of the change script goes to the fee instead of becoming an output.
 * When the coins do not suffice, `available` is what the coins coinselect would spend hold:
 * it skips a coin whose input costs more than its value at this rate, so counting those would
 * name more than can be spent (and `available` could reach the amount and fee it refused).
 */
export function selectCoins(candidates: Candidate[], recipient: { script: Uint8Array; amount: bigint }, changeScript: Uint8Array, feeRate: number): Selection {
  const available = candidates
    .filter((c) => BigInt(Math.ceil(feeRate * (COINSELECT_INPUT_BASE + INPUT_EXTRA_BYTES[c.format]))) <= c.utxo.value)
    .reduce((s, c) => s + c.utxo.value, 0n);
  const utxos = candidates.map((c) => ({
    value: Number(c.utxo.value),
    script: { length: INPUT_EXTRA_BYTES[c.format] },
    candidate: c,
  }));
  const target = { value: Number(recipient.amount), script: { length: recipient.script.length } };
  const result = coinSelect(utxos, [target], feeRate);
  if (!result.inputs || !result.outputs) return { ok: false, fee: BigInt(Math.ceil(result.fee)), available };
  const inputs = result.inputs.map((i) => i.candidate);
  const inValue = inputs.reduce((s, c) => s + c.utxo.value, 0n);
  let change = result.outputs.filter((o) => o !== target).reduce((s, o) => s + BigInt(o.value ?? 0), 0n);
  if (change > 0n && change < dustThreshold(changeScript)) change = 0n;
  const fee = inValue - recipient.amount - change;
  return { ok: true, inputs, change, fee };
}

export interface Recipient {
  script: Uint8Array;
  amount: bigint;
}

/** `send` goes to the recipient; `toSelf` marks a consolidation, whose one output is the vault's own. */
export type Choice =
  { ok: true; inputs: Candidate[]; send: bigint; change: bigint; fee: bigint; toSelf: boolean } | { ok: false; fee: bigint; available: bigint };

/** Fee at `rate` sat/vB for a transaction of `weight`. */
const feeOf = (weight: number, rate: number): bigint => BigInt(vbytes(weight) * rate);

/** A coin worth spending at `rate`: it brings more than its input costs (plus a count byte's growth). */
const pays = (c: Candidate, rate: number): boolean => c.utxo.value * 4n > BigInt((inputWeight(c.format) + 8) * rate);

const byValueDown = (a: Candidate, b: Candidate): number => (a.utxo.value < b.utxo.value ? 1 : a.utxo.value > b.utxo.value ? -1 : 0);

/** A selection that grows one coin at a time, its weight kept by tally, within `maxInputs` and the standard weight. */
class Growing {
  readonly inputs: Candidate[] = [];
  readonly tally: InputTally = emptyTally();
  sum = 0n;
  constructor(private readonly maxInputs: number) {}
  /** Whether one more coin `c` still fits. */
  fitsWith(c: Candidate, outputs: number[]): boolean {
    return this.inputs.length < this.maxInputs && this.weightWith(c, outputs) <= MAX_STANDARD_TX_WEIGHT;
  }
  add(c: Candidate): void {
    this.inputs.push(c);
    this.tally[c.format]++;
    this.sum += c.utxo.value;
  }
  weightWith(c: Candidate | undefined, outputs: number[]): number {
    if (!c) return tallyWeight(this.tally, outputs);
    this.tally[c.format]++;
    const w = tallyWeight(this.tally, outputs);
    this.tally[c.format]--;
    return w;
  }
}

/**
 * The most one transaction can carry to one output of `scriptLength` bytes: the coins that
 * pay for themselves, largest first, as many as fit in `maxInputs` and MAX_STANDARD_TX_WEIGHT.
 * With `changeScript`, room is kept for a change output of at least its dust threshold: the
 * most that still leaves one, so that every smaller amount can be sent too.
 */
export function maxSendable(
  candidates: Candidate[],
  scriptLength: number,
  rate: number,
  maxInputs: number,
  changeScript?: Uint8Array,
): { amount: bigint; inputs: number } {
  const outputs = changeScript ? [scriptLength, changeScript.length] : [scriptLength];
  const g = new Growing(maxInputs);
  for (const c of candidates.filter((x) => pays(x, rate)).sort(byValueDown)) {
    if (!g.fitsWith(c, outputs)) break;
    g.add(c);
  }
  const amount = g.sum - feeOf(g.weightWith(undefined, outputs), rate) - (changeScript ? dustThreshold(changeScript) : 0n);
  return { amount: amount > 0n ? amount : 0n, inputs: g.inputs.length };
}

/**
 * Largest coins first until the amount and fee are covered: the fewest inputs, used when the
 * general selector's pick is over the standard size. Undefined when no pick fits, and when
 * the change (at or above dust) would not fit beside them: without its output all of it
 * would go to the fee. Only a change under the dust threshold goes to the fee.
 */
function largestFirst(candidates: Candidate[], recipient: Recipient, changeScript: Uint8Array, rate: number, maxInputs: number): Choice | undefined {
  const g = new Growing(maxInputs);
  const alone = [recipient.script.length];
  const withChange = [recipient.script.length, changeScript.length];
  for (const c of candidates.filter((x) => pays(x, rate)).sort(byValueDown)) {
    if (!g.fitsWith(c, alone)) return undefined;
    g.add(c);
    if (g.sum < recipient.amount + feeOf(g.weightWith(undefined, alone), rate)) continue;
    const changeWeight = g.weightWith(undefined, withChange);
    const change = g.sum - recipient.amount - feeOf(changeWeight, rate);
    if (change < dustThreshold(changeScript))
      return { ok: true, inputs: g.inputs, send: recipient.amount, change: 0n, fee: g.sum - recipient.amount, toSelf: false };
    // A change worth keeping with no room beside these coins: refused, never burnt (fewer of the largest fall short).
    if (changeWeight > MAX_STANDARD_TX_WEIGHT) return undefined;
    return { ok: true, inputs: g.inputs, send: recipient.amount, change, fee: g.sum - recipient.amount - change, toSelf: false };
  }
  return undefined;
}

/**
 * A consolidation (a withdrawal to the vault's own address): as many coins as fit in one
 * standard transaction, smallest first, into one output carrying all but the fee and at least
 * `amount` (or the dust threshold). When the smallest coins fall short of `amount`, the
 * largest needed are taken first and the smallest fill the room left. Coins that cost more
 * to spend than they hold at this rate stay where they are.
 */
function consolidation(
  candidates: Candidate[],
  recipient: Recipient,
  rate: number,
  maxInputs: number,
  sendable: () => { amount: bigint; inputs: number },
): Choice {
  const out = [recipient.script.length];
  const eligible = candidates.filter((c) => pays(c, rate));
  const target = recipient.amount > dustThreshold(recipient.script) ? recipient.amount : dustThreshold(recipient.script);
  const fill = (g: Growing, from: Candidate[], skip: Set<Candidate>): Growing => {
    for (const c of from) {
      if (skip.has(c)) continue;
      if (!g.fitsWith(c, out)) break;
      g.add(c);
    }
    return g;
  };
  const result = (g: Growing): Choice | undefined => {
    const fee = feeOf(g.weightWith(undefined, out), rate);
    return g.inputs.length > 0 && g.sum - fee >= target ? { ok: true, inputs: g.inputs, send: g.sum - fee, change: 0n, fee, toSelf: true } : undefined;
  };
  const smallest = [...eligible].sort((a, b) => byValueDown(b, a));
  const plain = result(fill(new Growing(maxInputs), smallest, new Set()));
  if (plain) return plain;
  // The largest coins that reach the target, then the smallest into the room left.
  const large = new Growing(maxInputs);
  for (const c of [...eligible].sort(byValueDown)) {
    if (!large.fitsWith(c, out)) break;
    large.add(c);
    if (result(large)) break;
  }
  const base = result(large);
  if (!base) {
    // The fee of what was gathered, or of one input when no coin pays for itself.
    const fee = feeOf(large.weightWith(large.inputs.length ? undefined : (eligible[0] ?? candidates[0]), out), rate);
    const worth = eligible.reduce((s, c) => s + c.utxo.value, 0n);
    if (worth >= target + fee) throw tooLarge(recipient.amount, sendable(), rate, maxInputs);
    // What the coins worth spending hold: the others stay where they are.
    return { ok: false, fee, available: worth };
  }
  const grown = new Growing(maxInputs);
  for (const c of large.inputs) grown.add(c);
  return result(fill(grown, smallest, new Set(large.inputs))) ?? base;
}

function tooLarge(amount: bigint, max: { amount: bigint; inputs: number }, rate: number, maxInputs: number): InvalidArgumentError {
  const btc = (sat: bigint) => `${formatAmount(sat, 8)} BTC`;
  return new InvalidArgumentError(
    `amount ${btc(amount)} needs more coins than one transaction can spend (at most ${maxInputs} inputs and ${MAX_STANDARD_TX_WEIGHT / 4} vbytes): ` +
      `at most ${btc(max.amount)} can be sent in one transaction at ${rate} sat/vB, from this vault's ${max.inputs} largest free coins. ` +
      'Send at most that, or first consolidate the vault (a withdrawal to its own address spends its small coins into one).',
    { field: 'amount', maxAmount: formatAmount(max.amount, 8), maxAmountBaseUnits: max.amount.toString(), maxInputs: max.inputs, feeRate: rate },
  );
}

/**
 * Coins for a withdrawal, within `maxInputs` (each input is one payload of the sign request)
 * and the standard transaction size. A payment uses the general selector (`selectCoins`);
 * when its pick is over either limit, the largest coins first; when no pick fits, a 422
 * names the most one transaction can send. A payment to the vault itself (`toSelf`) is a
 * consolidation.
 */
export function chooseCoins(candidates: Candidate[], recipient: Recipient, changeScript: Uint8Array, rate: number, toSelf: boolean, maxInputs: number): Choice {
  const sendable = () => maxSendable(candidates, recipient.script.length, rate, maxInputs);
  if (toSelf) return consolidation(candidates, recipient, rate, maxInputs, sendable);
  const sel = selectCoins(candidates, recipient, changeScript, rate);
  if (!sel.ok) return sel;
  const outputs = sel.change > 0n ? [recipient.script.length, changeScript.length] : [recipient.script.length];
  const tally = emptyTally();
  for (const c of sel.inputs) tally[c.format]++;
  if (sel.inputs.length <= maxInputs && tallyWeight(tally, outputs) <= MAX_STANDARD_TX_WEIGHT) return { ...sel, send: recipient.amount, toSelf: false };
  const alt = largestFirst(candidates, recipient, changeScript, rate, maxInputs);
  if (alt) return alt;
  const most = sendable();
  // Under what the largest coins hold, but their change has no room beside them: name the most that leaves room.
  throw tooLarge(
    recipient.amount,
    most.amount < recipient.amount ? most : maxSendable(candidates, recipient.script.length, rate, maxInputs, changeScript),
    rate,
    maxInputs,
  );
}
