import { endedUnsigned, type SignOperation } from '../custody/types.js';
import { ACCEPT_OUTCOMES, acceptSignatures } from './accept-signatures.js';
import { failOperation } from './fail-operation.js';
import type { Operation } from './operation.js';
import type { PipelineDeps } from './pipeline-deps.js';

export const SETTLE_OUTCOMES = [...ACCEPT_OUTCOMES, 'failed', 'resend', 'pending'] as const;
export type SettleOutcome = (typeof SETTLE_OUTCOMES)[number];

/** The failure reason of a withdrawal whose sign operation ended without signatures. */
export function endedReason(remote: Pick<SignOperation, 'status' | 'statusText'>, prefix = ''): string {
  const text = remote.statusText && remote.statusText.toUpperCase() !== remote.status.toUpperCase() ? ` (${remote.statusText})` : '';
  return `${prefix}sign operation ${remote.status.toUpperCase()} at the custody service${text}`;
}

/**
 * Brings an EXECUTING withdrawal in line with its sign operation as the custody service
 * reports it (never as a callback claims it): COMPLETED goes through `acceptSignatures`
 * like a callback (or asks for the callback again when the lookup carries no signatures);
 * DECLINED, CANCELED, FAILED or ERROR end the withdrawal FAILED with that reason and give
 * its nonce, sequence or coins back; anything else is still pending.
 */
export async function settleFromCustody(deps: PipelineDeps, op: Operation): Promise<SettleOutcome> {
  if (op.status !== 'EXECUTING') return 'duplicate';
  if (!op.operationID) return 'pending';
  const remote = await deps.custody.getSignOperation(op.operationID);
  if (endedUnsigned(remote.status)) {
    return (await failOperation(deps, op, endedReason(remote), ['EXECUTING'])) ? 'failed' : 'duplicate';
  }
  if (remote.status.toUpperCase() !== 'COMPLETED') return 'pending';
  if (remote.signatures.length === 0) {
    // Some deployments leave signatures out of the lookup: ask for the callback again.
    await deps.custody.resend(op.operationID);
    return 'resend';
  }
  const r = await acceptSignatures(deps, op.ledgerId, {
    publicKeys: remote.publicKeys,
    providerData: '',
    dataToSign: remote.dataToSign,
    signatures: remote.signatures,
    v: remote.v,
  }, op);
  return r.outcome;
}
