import type { Operation, OperationStatus } from '../model/operation.js';
import { API_BASE } from '../../platform/api-base.js';

/**
 * What a job is about, for the people reading the dashboard. Written into job data under
 * `about` when the job is added and refreshed after each run; the workers never read it
 * (they reload the operation by `withdrawalId`), so editing it changes nothing but the view.
 */
export interface JobAbout {
  status: OperationStatus;
  ledger: string;
  /** Decimal string in asset units, as the client asked for it. */
  amount: string;
  asset: string;
  recipient: string;
  memo?: string;
  /** The service's own withdrawal id (`withdrawalId`): the one the API, events, logs and job names use. */
  withdrawal: string;
  /** Transaction ids once assembled, space-separated in transaction order. */
  txids?: string;
  confirmations: number;
  /** The ledger's (or the pipeline's) reason, once the withdrawal FAILED. */
  failureReason?: string;
  vault: string;
  /** The custody service's sign operation id (absent until the sign request was accepted); the API accepts it too. */
  operationID?: string;
  /** Where the API shows the withdrawal. */
  api: string;
  note: string;
}

export const ABOUT_NOTE = 'display only: the worker reads withdrawalId and reloads the withdrawal from the store';

export function aboutOperation(op: Operation, apiBase = API_BASE): JobAbout {
  const withdrawal = op.id;
  return {
    status: op.status,
    ledger: op.ledgerId,
    amount: op.request.amount,
    asset: op.request.asset,
    recipient: op.recipientAddress,
    ...(op.request.memo ? { memo: op.request.memo } : {}),
    withdrawal,
    ...(op.txids.length ? { txids: op.txids.join(' ') } : {}),
    confirmations: op.confirmations,
    ...(op.failureReason ? { failureReason: op.failureReason } : {}),
    vault: op.vaultId,
    ...(op.operationID ? { operationID: op.operationID } : {}),
    api: `${apiBase}/vaults/${encodeURIComponent(op.vaultId)}/withdrawals/${encodeURIComponent(withdrawal)}`,
    note: ABOUT_NOTE,
  };
}

const short = (s: string, keep = 6): string => (s.length > 2 * keep + 1 ? `${s.slice(0, keep)}…${s.slice(-keep)}` : s);

/** A job's name in the list: kind, ledger, amount, recipient, where it stands and, last, the withdrawalId. */
export function jobTitle(kind: string, about: JobAbout): string {
  return `${kind} · ${about.ledger} · ${about.amount} ${about.asset} → ${short(about.recipient)} · ${about.status} · ${about.withdrawal}`;
}

/** The `about` of job data, when it has the expected shape (data is editable, so it is checked). */
export function aboutOf(data: unknown): JobAbout | undefined {
  const about = (data as { about?: unknown } | null | undefined)?.about as Partial<JobAbout> | undefined;
  if (!about || typeof about !== 'object') return undefined;
  const fields = ['withdrawal', 'ledger', 'asset', 'amount', 'recipient', 'status'] as const;
  return fields.every((f) => typeof about[f] === 'string') ? (about as JobAbout) : undefined;
}
