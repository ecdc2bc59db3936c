import { DelayedError, type Job } from 'bullmq';
import type { PipelineDeps } from './pipeline-deps.js';
import { reconcileAttempts } from './reconcile-attempts.js';
import { watchBroadcast } from './watch-broadcast.js';

/**
 * Tracks a broadcast withdrawal until it is final (see watch-broadcast.ts for stuck, dropped,
 * replaced, conflicting and reorganised transactions). While it is not, the job puts itself
 * back with a delay instead of failing, so retries stay for real errors.
 */
export async function processConfirm(deps: PipelineDeps, job: Job, token: string | undefined): Promise<string> {
  const op = await deps.store.get(job.data.operationId as string);
  if (op.status !== 'BROADCAST') return `nothing to do in ${op.status}`;
  if (await watchBroadcast(deps, op)) return (await deps.store.get(op.id)).status.toLowerCase();
  await reconcileAttempts(deps, op);
  await job.moveToDelayed(Date.now() + deps.config.confirmPollMs, token);
  throw new DelayedError();
}
