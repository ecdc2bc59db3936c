import { isAppError } from '../errors.js';
import { acceptSignatures } from './accept-signatures.js';
import { attemptsOf, withAttempt } from './attempts.js';
import type { Operation } from './operation.js';
import type { PipelineDeps } from './pipeline-deps.js';

/**
 * Replacements (speed-up, cancel) waiting for their signatures RECONCILE_AFTER_SECONDS after
 * they were asked for, looked up at the custody service as reconciliation does for originals:
 * a completed sign operation whose callback was lost goes through the same path as a
 * callback; one unsigned after SIGN_TIMEOUT_SECONDS, or whose sign request never got out,
 * ends as a failed attempt, so the withdrawal can be replaced again.
 */
export async function reconcileAttempts(deps: PipelineDeps, op: Operation): Promise<void> {
  const now = Date.now();
  for (const [i, a] of attemptsOf(op).entries()) {
    if (i === 0 || a.status !== 'signing') continue;
    const age = now - Date.parse(a.createdAt);
    if (age < deps.config.reconcileAfterSeconds * 1000) continue;
    if (!a.operationID || age > deps.config.signTimeoutSeconds * 1000) {
      const reason = a.operationID ? `not signed within ${deps.config.signTimeoutSeconds} s (SIGN_TIMEOUT_SECONDS)` : 'the sign request never reached the custody service';
      await deps.store.update(op.id, (o) => ({ ...o, attempts: withAttempt(o, i, (x) => (x.status === 'signing' ? { ...x, status: 'failed', failureReason: reason } : x)) }));
      continue;
    }
    try {
      const remote = await deps.custody.getSignOperation(a.operationID);
      if (remote.status !== 'COMPLETED') continue;
      if (remote.signatures.length === 0) {
        await deps.custody.resend(a.operationID);
        continue;
      }
      const r = await acceptSignatures(deps, op.ledgerId, { publicKeys: remote.publicKeys, providerData: '', dataToSign: remote.dataToSign, signatures: remote.signatures, v: remote.v });
      deps.logger.info({ operationId: op.id, attempt: i, outcome: r.outcome }, 'reconciled a replacement without callback');
    } catch (e) {
      deps.logger.warn({ operationId: op.id, attempt: i, err: isAppError(e) ? e.message : e }, 'could not reconcile a replacement');
    }
  }
}
