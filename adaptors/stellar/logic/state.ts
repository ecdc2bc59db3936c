import type { Json } from '../../../src/ledger/adaptor.js';

/** What craft leaves for release, combine and broadcast; JSON-safe (int64 as decimal strings). */
export interface StellarState {
  [key: string]: Json;
  /** `G…` account that pays and signs. */
  source: string;
  /** Reserved sequence number. */
  sequence: string;
  /** Reservation scope `${ledgerId}:${source}`. */
  scope: string;
  /** Upper time bound, unix seconds. */
  maxTime: string;
  /** Account this withdrawal creates (`create_account`), held so no other withdrawal creates it too; null (or absent in older states) otherwise. */
  creates: string | null;
}

/** Claim scope of accounts being created by pending withdrawals of a ledger. */
export function creationScope(ledgerId: string): string {
  return `${ledgerId}:creates`;
}

/** Whether the state is a speed-up's: its envelope is a fee-bump around the signed original (`feeBump: 'true'`). */
export function isFeeBump(state: StellarState): boolean {
  return state.feeBump === 'true';
}

export function readState(state: Json): StellarState {
  const s = state as Partial<StellarState> | null;
  if (!s || typeof s !== 'object' || typeof s.source !== 'string' || typeof s.sequence !== 'string' || typeof s.scope !== 'string') {
    throw new Error('not a Stellar withdrawal state');
  }
  return s as StellarState;
}

export function sequenceScope(ledgerId: string, account: string): string {
  return `${ledgerId}:${account}`;
}
