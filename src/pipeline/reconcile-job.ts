import { isAppError } from '../errors.js';
import { failOperation } from './fail-operation.js';
import { jobJournal } from './job-journal.js';
import type { Operation } from './operation.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { addBroadcastJob, broadcastJobId } from './queues.js';
import { settleFromCustody } from './settle-from-custody.js';

/**
 * A SIGNED withdrawal whose broadcast job ran out of attempts (node down for long) is not
 * failed: its transaction may already sit on a node. Its job is started again here, at the
 * reconciliation cadence, until the ledger takes it or rejects it for good.
 */
async function restartBroadcast(deps: PipelineDeps, op: Operation): Promise<boolean> {
  const job = await deps.queues.broadcast.getJob(broadcastJobId(op.id));
  if (!job) {
    await addBroadcastJob(deps.queues, op);
    return true;
  }
  if (!(await job.isFailed())) return false;
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  await jobJournal(job, deps.logger).log('started again by reconciliation: still SIGNED after its attempts ran out');
  return true;
}

/**
 * Finds withdrawals not yet broadcast RECONCILE_AFTER_SECONDS after their creation:
 * - waiting for signatures: asks the custody service where they stand; a completed sign
 *   operation goes through the same path as a callback, so a lost callback loses nothing;
 *   one the quorum declined or that was canceled, failed or errored ends FAILED, reservations back;
 *   expired, never-sent, or unsigned after SIGN_TIMEOUT_SECONDS: FAILED, reservations back
 *   (a callback arriving later is refused, so nothing is broadcast for a FAILED withdrawal);
 * - signed but with a broadcast that gave up: its broadcast starts again.
 */
export async function processReconcile(deps: PipelineDeps): Promise<{ checked: number; recovered: number; failed: number }> {
  const now = Date.now();
  const ids = await deps.store.openBefore(now - deps.config.reconcileAfterSeconds * 1000);
  let recovered = 0;
  let failed = 0;
  for (const id of ids) {
    const op = await deps.store.find(id);
    if (op?.status === 'SIGNED') {
      if (await restartBroadcast(deps, op).catch(() => false)) deps.logger.warn({ operationId: op.id }, 'restarted a broadcast that had given up');
      continue;
    }
    if (!op || op.status !== 'EXECUTING') continue;
    if (Date.parse(op.createdAt) < now - deps.config.signTimeoutSeconds * 1000) {
      const reason = `not signed within ${deps.config.signTimeoutSeconds} s (SIGN_TIMEOUT_SECONDS)`;
      if (await failOperation(deps, op, reason, ['EXECUTING'])) failed++;
      continue;
    }
    if (op.unsigned.expiresAt && op.unsigned.expiresAt < now) {
      if (await failOperation(deps, op, 'expired: the ledger would no longer accept the transaction', ['EXECUTING'])) failed++;
      continue;
    }
    if (!op.operationID) {
      if (await failOperation(deps, op, 'the sign request never reached the custody service', ['EXECUTING'])) failed++;
      continue;
    }
    try {
      const outcome = await settleFromCustody(deps, op);
      if (outcome === 'queued') recovered++;
      if (outcome === 'failed') failed++;
      if (outcome !== 'pending') deps.logger.info({ operationId: op.id, operationID: op.operationID, outcome }, 'reconciled a sign operation without callback');
    } catch (e) {
      deps.logger.warn({ operationId: op.id, err: isAppError(e) ? e.message : e }, 'reconciliation could not finish this operation');
    }
  }
  return { checked: ids.length, recovered, failed };
}
