import { endedUnsigned, type SignOperation } from '../custody/types.js';
import { ACCEPT_OUTCOMES, acceptSignatures } from './accept-signatures.js';
import { attemptsOf, withSigningFailed } from './model/operation.js';
import { failOperation } from './fail-operation.js';
import type { Operation } from './model/operation.js';
import type { PipelineDeps } from './pipeline-deps.js';

export const SETTLE_OUTCOMES = [...ACCEPT_OUTCOMES, 'failed', 'resend', 'pending'] as const;
export type SettleOutcome = (typeof SETTLE_OUTCOMES)[number];

/** The failure reason of a withdrawal whose sign operation ended without signatures. */
export function endedReason(remote: Pick<SignOperation, 'status' | 'statusText'>, prefix = ''): string {
  const text = remote.statusText && remote.statusText.toUpperCase() !== remote.status.toUpperCase() ? ` (${remote.statusText})` : '';
  return `${prefix}sign operation ${remote.status.toUpperCase()} at the custody service${text}`;
}

/**
 * The failure reason of a withdrawal (or replacement) still unsigned after SIGN_TIMEOUT_SECONDS.
 * What the custody service last said of its sign operation is added when it says more than
 * the status: a request held by a policy rule (outside its weekly time slots) names the rule.
 */
export function timeoutReason(signTimeoutSeconds: number, remote?: Pick<SignOperation, 'status' | 'statusText'>): string {
  const base = `not signed within ${signTimeoutSeconds} s (SIGN_TIMEOUT_SECONDS)`;
  const says = remote?.statusText && remote.statusText.toUpperCase() !== remote.status.toUpperCase();
  return says ? `${base}: ${endedReason(remote)}` : base;
}

/** A settle's outcome, with the sign operation as the custody service reported it when it was asked. */
export interface Settled {
  outcome: SettleOutcome;
  remote?: SignOperation;
}

/**
 * Brings an EXECUTING withdrawal in line with its sign operation as the custody service
 * reports it (never as a callback claims it): COMPLETED goes through `acceptSignatures`
 * like a callback (or asks for the callback again when the lookup carries no signatures);
 * DECLINED, CANCELED, FAILED or ERROR end the withdrawal FAILED with that reason and give
 * its nonce, sequence or coins back; anything else is still pending.
 *
 * With `attempt` above 0, the same for that replacement (speed-up, cancel) while it waits for
 * its signatures, whatever the withdrawal's status: an unsigned end fails the attempt only,
 * so the withdrawal can be replaced again and its transactions already out go on.
 */
export async function settleFromCustody(deps: PipelineDeps, op: Operation, attempt = 0): Promise<SettleOutcome> {
  return (await settleAndTell(deps, op, attempt)).outcome;
}

/** `settleFromCustody`, answering also the sign operation it read (reconciliation words a timeout with it). */
export async function settleAndTell(deps: PipelineDeps, op: Operation, attempt = 0): Promise<Settled> {
  if (attempt > 0) return settleReplacement(deps, op, attempt);
  if (op.status !== 'EXECUTING') return { outcome: 'duplicate' };
  if (!op.operationID) return { outcome: 'pending' };
  const remote = await deps.custody.getSignOperation(op.operationID);
  if (endedUnsigned(remote.status)) {
    return { outcome: (await failOperation(deps, op, endedReason(remote), ['EXECUTING'])) ? 'failed' : 'duplicate', remote };
  }
  return { outcome: await completed(deps, op, op.operationID, remote), remote };
}

async function settleReplacement(deps: PipelineDeps, op: Operation, i: number): Promise<Settled> {
  const a = attemptsOf(op)[i];
  if (a?.status !== 'signing') return { outcome: 'duplicate' };
  if (!a.operationID) return { outcome: 'pending' };
  const remote = await deps.custody.getSignOperation(a.operationID);
  if (endedUnsigned(remote.status)) {
    const after = await failSigningAttempt(deps, op.id, i, endedReason(remote));
    return { outcome: attemptsOf(after)[i]?.status === 'failed' ? 'failed' : 'duplicate', remote };
  }
  return { outcome: await completed(deps, op, a.operationID, remote), remote };
}

/** A sign operation that is not over yet is pending; a completed one is accepted as a callback would be. */
async function completed(deps: PipelineDeps, op: Operation, operationID: string, remote: SignOperation): Promise<SettleOutcome> {
  if (remote.status.toUpperCase() !== 'COMPLETED') return 'pending';
  if (remote.signatures.length === 0) {
    // Some deployments leave signatures out of the lookup: ask for the callback again.
    await deps.custody.resend(operationID);
    return 'resend';
  }
  const body = { publicKeys: remote.publicKeys, providerData: '', dataToSign: remote.dataToSign, signatures: remote.signatures, v: remote.v };
  return (await acceptSignatures(deps, op.ledgerId, body, op)).outcome;
}

/** Ends replacement `i` failed for `reason` if it still waits for its signatures (one that got out is judged by the node). */
export function failSigningAttempt(deps: Pick<PipelineDeps, 'store'>, id: string, i: number, reason: string): Promise<Operation> {
  return deps.store.update(id, (o) => ({ ...o, attempts: withSigningFailed(o, [i], reason) }));
}
