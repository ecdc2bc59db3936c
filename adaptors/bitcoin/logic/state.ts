import { PermanentLedgerError } from '../../../src/errors.js';
import type { Json } from '../../../src/ledger/adaptor.js';
import type { AddressFormat } from './address.js';

/** What `combine` and `release` need from `craft`, JSON-safe (satoshis as decimal strings). */
export interface CraftState {
  v: 1;
  ledgerId: string;
  feeRate: number;
  inputs: {
    txid: string;
    vout: number;
    value: string;
    address: string;
    format: AddressFormat;
    /** Compressed key hex. */
    publicKey: string;
    keyId: string;
  }[];
  outputs: { address: string; value: string; change: boolean }[];
  /** `txid:vout` items held in Reservations under the withdrawal's reference. */
  reserved: string[];
}

export function toJson(state: CraftState): Json {
  return state as unknown as Json;
}

export function readState(state: Json, ledgerId: string): CraftState {
  const s = state as unknown as CraftState;
  if (!s || typeof s !== 'object' || s.v !== 1 || !Array.isArray(s.inputs) || !Array.isArray(s.reserved)) {
    throw new PermanentLedgerError('stored withdrawal state is not a Bitcoin craft state');
  }
  if (s.ledgerId !== ledgerId) throw new PermanentLedgerError(`stored withdrawal was crafted for ${s.ledgerId}, not ${ledgerId}`);
  return s;
}
