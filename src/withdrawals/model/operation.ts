import { z } from 'zod';
import type { Json, SignedTx, SigningPayload, UnsignedWithdrawal } from '../../ledger/adaptor.js';

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
  allowOffCurveRecipient: z.boolean().optional(),
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
  /** Every transaction tried for this withdrawal (see `Attempt` below); absent on records made before replacements existed. */
  attempts?: Attempt[];
  /** Set while the node refuses the signed transaction without proof that it can never land; cleared once one is mined. */
  refused?: RefusedMark;
  /** Set while the live transaction waits longer than the stuck threshold; cleared once mined. */
  stuck?: StuckMark;
  /** A withdrawal that waited for its vault's one-time setup before it could be crafted (setup-first.ts). */
  setup?: SetupMark;
  /** A vault's setup: the id of the withdrawal it was made for (that one is crafted once this is CONFIRMED). */
  setupFor?: string;
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

/**
 * A withdrawal is one operation with one or more attempts: the original transaction, then each
 * speed-up or cancel, each its own custody sign request, txids, fee and times. Exactly one
 * attempt can land (they share a nonce, a sequence number or inputs); the operation follows it.
 *
 * Status of an attempt:
 * - `signing`   its sign request is out; nothing was sent yet;
 * - `broadcast` sent to the node (it may still be replaced, dropped or reorganised away);
 * - `replaced`  another attempt of the same withdrawal landed;
 * - `confirmed` this one landed with the ledger's confirmations;
 * - `failed`    refused (sign request declined, node rejected it) or lost to a foreign transaction.
 */
export const ATTEMPT_KINDS = ['original', 'speed-up', 'cancel'] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];
export const ATTEMPT_STATUSES = ['signing', 'broadcast', 'replaced', 'confirmed', 'failed'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export interface Attempt {
  kind: AttemptKind;
  txids: string[];
  /** Fee the attempt pays at most, base units of the native asset (decimal string). */
  fee: string;
  createdAt: string;
  /** First time it was handed to the node. */
  sentAt?: string;
  /** Last time it was handed to the node (first send or a resend after a drop). */
  lastSentAt?: string;
  /** The custody sign request of this attempt. */
  operationID?: string;
  status: AttemptStatus;
  /** How often the stored signed bytes were sent again because the node no longer knew them. */
  rebroadcasts?: number;
  /** Chain height when it was first watched after sending (for STUCK_AFTER_BLOCKS). */
  sentHeight?: number;
  /** Block / ledger height it was last seen mined at; a later "not mined" means a reorganisation. */
  minedAt?: number;
  failureReason?: string;
  /** The node's refusals of this attempt's signed transaction that prove nothing (newest last, at most MAX_REFUSALS). */
  refusals?: Refusal[];
  /** Replacements only: what was crafted and signed (the original's lives in `Operation.unsigned`). */
  unsigned?: StoredUnsigned;
  /** Replacements only: signed transactions (hex), kept for resending (the original's live in `Operation.signedTxs`). */
  signed?: string[];
}

/**
 * A node's refusal of a signed transaction that does not prove it can never land (no funds yet,
 * a fee under that node's floor, an account's state in preflight): what it said, when, which
 * node. The transaction stays claimed (nonce, coins, sequence, durable nonce) and watched.
 */
export const refusalSchema = z.object({
  at: z.string(),
  answer: z.string().describe("The node's own words"),
  errCode: z.string(),
  node: z.string().optional().describe('The back end that answered, where known'),
});
export type Refusal = z.infer<typeof refusalSchema>;

/** Refusals kept per attempt: the first and the latest ones tell the story. */
export const MAX_REFUSALS = 10;

/** `attempt.refusals` with `r` added, the oldest beyond the first dropped past MAX_REFUSALS. */
export function withRefusal(list: Refusal[] | undefined, r: Refusal): Refusal[] {
  const all = [...(list ?? []), r];
  return all.length <= MAX_REFUSALS ? all : [all[0] as Refusal, ...all.slice(all.length - MAX_REFUSALS + 1)];
}

/**
 * Set on a withdrawal while its signed transaction was refused by the node and nothing proves
 * it can never land: it is not FAILED (the same bytes may still reach the ledger, from this
 * service or from anyone holding them) and not known to be out. `invalidateAfter`: when the
 * service asks for its invalidation (a cancel), unless one was asked for already.
 */
export const refusedMarkSchema = z.object({
  since: z.string(),
  answer: z.string(),
  errCode: z.string(),
  invalidateAfter: z.string().optional(),
});
export type RefusedMark = z.infer<typeof refusedMarkSchema>;

/**
 * On a withdrawal that needed its vault's one-time setup (a Solana durable-nonce account) first:
 * the setup is a withdrawal of its own (`withdrawalId`: its sign request, transaction and fee),
 * and this one is crafted and sent to be signed once the setup is CONFIRMED. Stored and shown.
 */
export const SETUP_STATUSES = ['waiting', 'done', 'failed'] as const;
export const setupMarkSchema = z.object({
  kind: z.string().describe('What the setup makes: nonce-account'),
  withdrawalId: z.string().describe("The setup's own withdrawal: its sign request, transaction and fee"),
  recipientAddress: z.string().describe('Where the setup pays (the nonce address)'),
  amount: z.string().describe('Base units of the native asset the setup pays (the account rent), besides its fee'),
  status: z.enum(SETUP_STATUSES).describe('waiting: this withdrawal is crafted once the setup is CONFIRMED; done; failed (and so is this withdrawal)'),
  fee: z.string().optional().describe("The setup transaction's fee, base units of the native asset, once it is done"),
  txids: z.array(z.string()).optional().describe('The setup transaction, once it is done'),
});
export type SetupMark = z.infer<typeof setupMarkSchema>;

/** Set on an operation while its sent transaction waits longer than the stuck threshold: stored and shown as it is. */
export const stuckMarkSchema = z.object({ since: z.string(), reason: z.string() });
export type StuckMark = z.infer<typeof stuckMarkSchema>;

function originalStatus(op: Operation): AttemptStatus {
  if (op.status === 'CONFIRMED') return 'confirmed';
  if (op.status === 'FAILED') return 'failed';
  if (op.status === 'BROADCAST') return 'broadcast';
  return 'signing';
}

/** The attempts of an operation; a record without them (made before they existed) has its original derived. */
export function attemptsOf(op: Operation): Attempt[] {
  if (op.attempts?.length) return op.attempts;
  const sent = op.history.find((h) => h.status === 'BROADCAST')?.at;
  return [
    {
      kind: 'original',
      txids: op.txids,
      fee: op.unsigned.fee,
      createdAt: op.createdAt,
      ...(sent ? { sentAt: sent, lastSentAt: sent } : {}),
      ...(op.operationID ? { operationID: op.operationID } : {}),
      status: originalStatus(op),
      ...(op.failureReason && op.status === 'FAILED' ? { failureReason: op.failureReason } : {}),
    },
  ];
}

/** What attempt `i` crafted: the original's lives on the operation. */
export function unsignedOf(op: Operation, i: number): StoredUnsigned {
  return i === 0 ? op.unsigned : ((attemptsOf(op)[i] as Attempt).unsigned as StoredUnsigned);
}

/** The signed transactions of attempt `i`, as they were sent. */
export function signedOf(op: Operation, i: number): SignedTx[] {
  const a = attemptsOf(op)[i] as Attempt;
  const hex = i === 0 ? op.signedTxs : a.signed;
  return (hex ?? []).map((serialized, txIndex) => ({ txIndex, serialized, txid: a.txids[txIndex] as string }));
}

/** Replaces attempt `i` with `change(it)`, materialising the list on old records. */
export function withAttempt(op: Operation, i: number, change: (a: Attempt) => Attempt): Attempt[] {
  return attemptsOf(op).map((a, j) => (j === i ? change(a) : a));
}

/** The attempts with those of `indexes` still waiting for their signatures failed for `reason` (one that got out is judged by the node). */
export function withSigningFailed(op: Operation, indexes: number[], reason: string): Attempt[] {
  return attemptsOf(op).map((a, i) => (indexes.includes(i) && a.status === 'signing' ? { ...a, status: 'failed', failureReason: reason } : a));
}

/** Indexes of the attempts that are out on the network. */
export function liveAttempts(op: Operation): number[] {
  return attemptsOf(op).flatMap((a, i) => (a.status === 'broadcast' ? [i] : []));
}

/** What the withdrawal response shows of an attempt: never the crafted state or signed bytes. */
export const renderedAttemptSchema = z.object({
  kind: z.enum(ATTEMPT_KINDS),
  status: z.enum(ATTEMPT_STATUSES),
  txids: z.array(z.string()),
  fee: z.string().describe('Fee paid at most, base units of the native asset'),
  createdAt: z.string(),
  sentAt: z.string().optional(),
  operationID: z.string().optional().describe('The custody sign request of this attempt'),
  rebroadcasts: z.number().optional().describe('Times the signed transaction was sent again after the node dropped it'),
  failureReason: z.string().optional(),
  refusals: z.array(refusalSchema).optional().describe('Refusals by the node that prove nothing: the transaction may still land'),
});
export type RenderedAttempt = z.infer<typeof renderedAttemptSchema>;

export function renderAttempt(a: Attempt): RenderedAttempt {
  return {
    kind: a.kind,
    status: a.status,
    txids: a.txids,
    fee: a.fee,
    createdAt: a.createdAt,
    ...(a.sentAt ? { sentAt: a.sentAt } : {}),
    ...(a.operationID ? { operationID: a.operationID } : {}),
    ...(a.rebroadcasts ? { rebroadcasts: a.rebroadcasts } : {}),
    ...(a.failureReason ? { failureReason: a.failureReason } : {}),
    ...(a.refusals?.length ? { refusals: a.refusals } : {}),
  };
}
