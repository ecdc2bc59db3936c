import { isAppError } from '../../platform/errors.js';
import { attemptsOf } from '../model/operation.js';
import type { Operation } from '../model/operation.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { failSigningAttempt, settleAndTell, timeoutReason } from '../settle-from-custody.js';

/**
 * Replacements (speed-up, cancel) waiting for their signatures RECONCILE_AFTER_SECONDS after
 * they were asked for, looked up at the custody service as reconciliation does for originals
 * (`settleAndTell`): a completed sign operation whose callback was lost goes through the
 * same path as a callback; one that ended unsigned (declined, canceled, failed) ends the
 * attempt failed. So does one still unsigned after SIGN_TIMEOUT_SECONDS, or whose sign
 * request never got out, so the withdrawal can be replaced again. Failing an attempt gives
 * nothing back (the withdrawal's own transaction is out), so a custody service that cannot be
 * asked past the timeout fails it too: a late signature then finds it over and is not sent.
 */
export async function reconcileAttempts(deps: PipelineDeps, op: Operation): Promise<void> {
  const now = Date.now();
  for (const [i, a] of attemptsOf(op).entries()) {
    if (i === 0 || a.status !== 'signing') continue;
    const age = now - Date.parse(a.createdAt);
    if (age < deps.config.reconcileAfterSeconds * 1000) continue;
    const timedOut = age > deps.config.signTimeoutSeconds * 1000;
    const timeout = timeoutReason(deps.config.signTimeoutSeconds);
    if (!a.operationID) {
      await failSigningAttempt(deps, op.id, i, 'the sign request never reached the custody service');
      continue;
    }
    try {
      const { outcome, remote } = await settleAndTell(deps, op, i);
      if (outcome === 'pending' && timedOut) await failSigningAttempt(deps, op.id, i, timeoutReason(deps.config.signTimeoutSeconds, remote));
      else if (outcome !== 'pending') deps.logger.info({ withdrawalId: op.id, attempt: i, outcome }, 'reconciled a replacement without callback');
    } catch (e) {
      deps.logger.warn({ withdrawalId: op.id, attempt: i, err: isAppError(e) ? e.message : e }, 'could not reconcile a replacement');
      if (timedOut) await failSigningAttempt(deps, op.id, i, timeout);
    }
  }
}
