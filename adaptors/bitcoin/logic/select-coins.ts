import coinSelect from 'coinselect';
import type { Utxo } from '../network/backend.js';
import type { AddressFormat } from './address.js';
import { dustThreshold } from './dust.js';

export interface Candidate {
  utxo: Utxo;
  format: AddressFormat;
}

export type Selection =
  | { ok: true; inputs: Candidate[]; change: bigint; fee: bigint }
  | { ok: false; fee: bigint; available: bigint };

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

/**
 * Chooses coins with `coinselect` (the bitcoinjs project's own selector: blackjack, then
 * accumulative) and applies the dust rule coinselect does not know: change below the dust
 * threshold of the change script goes to the fee instead of becoming an output.
 */
export function selectCoins(
  candidates: Candidate[],
  recipient: { script: Uint8Array; amount: bigint },
  changeScript: Uint8Array,
  feeRate: number,
): Selection {
  const available = candidates.reduce((s, c) => s + c.utxo.value, 0n);
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
