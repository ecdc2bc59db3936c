import { z } from 'zod';
import type { Json, SigningPayload, UnsignedWithdrawal } from '../../ledger/adaptor.js';
import type { Attempt, StuckMark } from './attempts.js';

/**
 * A withdrawal operation as stored: everything needed to finish it comes from here, never
 * from a job's data or a callback's echo. Bigints are decimal strings (JSON-safe).
 */
export const OPERATION_STATUSES = ['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED', 'FAILED'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

export const FINAL_STATUSES: readonly OperationStatus[] = ['CONFIRMED', 'FAILED'];

export interface StoredUnsigned {
  txs: { serialized: string }[];
  payloads: SigningPayload[];
  fee: string;
  state: Json;
  expiresAt?: number;
}

/** One status change of an operation, as stored and shown (`history`). */
export const historyEntrySchema = z.object({ status: z.enum(OPERATION_STATUSES), at: z.string(), detail: z.string().optional() });
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

/** The withdrawal request as stored and shown back (`appData.request`): one schema for the record and the response. */
export const withdrawalRequestRecordSchema = z.object({
  recipientAddress: z.string(),
  recipientVault: z.string().optional(),
  asset: z.string(),
  amount: z.string(),
  description: z.string(),
  fee: z.string(),
  memo: z.string().optional(),
});
export type WithdrawalRequestRecord = z.infer<typeof withdrawalRequestRecordSchema>;

/** The unsigned withdrawal as stored: the fee as a decimal string. */
export function toStored(u: UnsignedWithdrawal): StoredUnsigned {
  return { txs: u.txs, payloads: u.payloads, fee: u.fee.toString(), state: u.state, ...(u.expiresAt ? { expiresAt: u.expiresAt } : {}) };
}

export function fromStored(s: StoredUnsigned): UnsignedWithdrawal {
  return { txs: s.txs, payloads: s.payloads, fee: BigInt(s.fee), state: s.state, ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}) };
}

export interface Operation {
  /** Internal id: owns reservations and keys the store. Fixed before the sign request goes out. */
  id: string;
  /** The custody operation id once the sign request was accepted; the client-facing id. */
  operationID?: string;
  vaultId: string;
  ledgerId: string;
  request: WithdrawalRequestRecord;
  /** The resolved recipient address (recipientVault resolved, memo split off). */
  recipientAddress: string;
  unsigned: StoredUnsigned;
  status: OperationStatus;
  history: HistoryEntry[];
  /** Txids recorded before broadcast, in tx order. */
  txids: string[];
  /** Set once any broadcast was attempted: from then on reservations are never released. */
  broadcastAttempted?: boolean;
  /** The original attempt's signed transactions (hex), kept to send them again if a node drops them. */
  signedTxs?: string[];
  /** Every transaction tried for this withdrawal (see attempts.ts); absent on records made before replacements existed. */
  attempts?: Attempt[];
  /** Set while the live transaction waits longer than the stuck threshold; cleared once mined. */
  stuck?: StuckMark;
  confirmations: number;
  failureReason?: string;
  createdAt: string;
  updatedAt: string;
}

export function isFinal(op: Operation): boolean {
  return FINAL_STATUSES.includes(op.status);
}

/** A new operation waiting for its signatures: the one place the initial state is spelled out. */
export function newOperation(
  fields: Pick<Operation, 'id' | 'vaultId' | 'ledgerId' | 'request' | 'recipientAddress' | 'unsigned'>,
  now = new Date().toISOString(),
): Operation {
  return { ...fields, status: 'EXECUTING', history: [{ status: 'EXECUTING', at: now }], txids: [], confirmations: 0, createdAt: now, updatedAt: now };
}
