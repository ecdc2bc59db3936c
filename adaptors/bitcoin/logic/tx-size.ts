import type { AddressFormat } from './address.js';

/**
 * Bitcoin Core's MAX_STANDARD_TX_WEIGHT (policy/policy.h), which bcoin applies too: nodes
 * relay no transaction above 400,000 weight units (100,000 vbytes). It bounds how many coins
 * one withdrawal can spend: ~1,460 P2WPKH, ~1,090 P2SH-P2WPKH or ~670 P2PKH inputs.
 */
export const MAX_STANDARD_TX_WEIGHT = 400_000;

/** Signed-size upper bounds per input type: non-witness scriptSig bytes and witness bytes (73-byte DER signature). */
const SCRIPT_SIG: Record<AddressFormat, number> = { p2wpkh: 0, 'p2sh-p2wpkh': 23, p2pkh: 108 };
const WITNESS: Record<AddressFormat, number> = { p2wpkh: 109, 'p2sh-p2wpkh': 109, p2pkh: 0 };

const varIntSize = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);

/** Weight one input of `format` adds, signed (outpoint, sequence, scriptSig; witness at a quarter). */
export function inputWeight(format: AddressFormat): number {
  return (32 + 4 + 4 + varIntSize(SCRIPT_SIG[format]) + SCRIPT_SIG[format]) * 4 + WITNESS[format];
}

/** Weight one output of a script of `scriptLength` bytes adds. */
export function outputWeight(scriptLength: number): number {
  return (8 + varIntSize(scriptLength) + scriptLength) * 4;
}

/** How many inputs of each type a transaction spends. */
export type InputTally = Record<AddressFormat, number>;

export const emptyTally = (): InputTally => ({ p2wpkh: 0, 'p2sh-p2wpkh': 0, p2pkh: 0 });

/**
 * Weight of the signed transaction, an upper bound: version, locktime and the input and
 * output counts, plus the SegWit marker and flag and an empty witness for each non-SegWit
 * input when any input has a witness. From a tally, so growing a selection costs O(1).
 */
export function tallyWeight(tally: InputTally, outputScriptLengths: readonly number[]): number {
  const formats = Object.keys(tally) as AddressFormat[];
  const count = formats.reduce((n, f) => n + tally[f], 0);
  const segwit = formats.some((f) => tally[f] > 0 && WITNESS[f] > 0);
  let weight = (4 + 4 + varIntSize(count) + varIntSize(outputScriptLengths.length)) * 4 + (segwit ? 2 : 0);
  for (const f of formats) weight += tally[f] * (inputWeight(f) + (segwit && WITNESS[f] === 0 ? 1 : 0));
  for (const len of outputScriptLengths) weight += outputWeight(len);
  return weight;
}

export function signedWeight(formats: readonly AddressFormat[], outputScriptLengths: readonly number[]): number {
  const tally = emptyTally();
  for (const f of formats) tally[f]++;
  return tallyWeight(tally, outputScriptLengths);
}

/** Virtual bytes: weight / 4 rounded up, what fee rates are paid on. */
export const vbytes = (weight: number): number => Math.ceil(weight / 4);
