import { isAppError } from '../errors.js';
import { acceptSignatures } from './accept-signatures.js';
import { failOperation } from './fail-operation.js';
import type { PipelineDeps } from './pipeline-deps.js';

/**
 * Finds withdrawals still waiting for signatures after RECONCILE_AFTER_SECONDS and asks
 * the custody service where they stand; a completed sign operation goes through the same
 * path as a callback, so a lost callback loses nothing. Expired or never-sent requests end
 * as FAILED and give their reservations back.
 */
export async function processReconcile(deps: PipelineDeps): Promise<{ checked: number; recovered: number; failed: number }> {
  const now = Date.now();
  const ids = await deps.store.openBefore(now - deps.config.reconcileAfterSeconds * 1000);
  let recovered = 0;
  let failed = 0;
  for (const id of ids) {
    const op = await deps.store.find(id);
    if (!op || op.status !== 'EXECUTING') continue;
    if (op.unsigned.expiresAt && op.unsigned.expiresAt < now) {
      if (await failOperation(deps, op, 'expired: the ledger would no longer accept the transaction', ['EXECUTING'])) failed++;
      continue;
    }
    if (!op.operationID) {
      if (await failOperation(deps, op, 'the sign request never reached the custody service', ['EXECUTING'])) failed++;
      continue;
    }
    try {
      const remote = await deps.custody.getSignOperation(op.operationID);
      if (remote.status !== 'COMPLETED' || remote.signatures.length === 0) continue;
      const r = await acceptSignatures(deps, op.ledgerId, {
        publicKeys: remote.publicKeys,
        providerData: '',
        dataToSign: remote.dataToSign,
        signatures: remote.signatures,
        v: remote.v,
      });
      if (r.outcome === 'queued') recovered++;
      deps.logger.info({ operationId: op.id, operationID: op.operationID, outcome: r.outcome }, 'reconciled a sign operation without callback');
    } catch (e) {
      deps.logger.warn({ operationId: op.id, err: isAppError(e) ? e.message : e }, 'reconciliation could not finish this operation');
    }
  }
  return { checked: ids.length, recovered, failed };
}
