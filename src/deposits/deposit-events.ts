import type { DepositView } from './deposit.js';

/**
 * Deposit events go to the same outbox stream as withdrawal events, written by the scanner's
 * step in the same Lua call as the change (deposit-store.ts), and reach subscribers through the
 * same signed, ordered webhooks: ordered per deposit, numbered 1, 2, 3… per deposit.
 */
export const DEPOSIT_EVENT_TYPES = ['deposit.detected', 'deposit.confirmed', 'deposit.reverted'] as const;
export type DepositEventType = (typeof DEPOSIT_EVENT_TYPES)[number];

export interface DepositEvent {
  /** Unique per event: receivers dedupe by it (delivery is at-least-once). */
  id: string;
  type: DepositEventType;
  createdAt: string;
  depositId: string;
  vaultId: string;
  /** 1, 2, 3… per deposit, without gaps: the order of its events. */
  sequence: number;
  /** The deposit after the change, as `GET /vaults/{vaultId}/deposits` shows it. */
  deposit: DepositView;
}

/** Whether an outbox entry's fields are a deposit event's (it names a `depositId`). */
export function isDepositEntry(fields: string[]): boolean {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'depositId') return true;
  return false;
}

/** An outbox stream entry written by the scanner, back as an event. */
export function parseDepositEntry(fields: string[]): DepositEvent {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i] as string, fields[i + 1] as string);
  const deposit = JSON.parse(f.get('deposit') ?? 'null') as DepositView;
  return {
    id: f.get('id') as string,
    type: f.get('type') as DepositEventType,
    createdAt: f.get('at') as string,
    depositId: f.get('depositId') as string,
    vaultId: deposit.vaultId,
    sequence: Number(f.get('sequence')),
    deposit,
  };
}
