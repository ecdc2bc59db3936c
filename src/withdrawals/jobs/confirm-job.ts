import { DelayedError, type Job } from 'bullmq';
import type { PipelineDeps } from '../pipeline-deps.js';
import { withdrawalIdOf, type QueuedOperationJob } from './queues.js';
import { noJournal, type JobJournal } from './job-journal.js';
import { reconcileAttempts } from '../sending/reconcile-attempts.js';
import { watchBroadcast } from '../sending/watch-broadcast.js';
import { continueAfterSetup } from '../setup-first.js';
import type { Operation } from '../model/operation.js';

/** A vault setup that ended: the withdrawal that waited for it is crafted now (or failed); reconciliation looks again if this fails. */
async function moveOnAfterSetup(deps: PipelineDeps, setup: Operation, journal: JobJournal): Promise<void> {
  const waiting = setup.setupFor as string;
  try {
    const after = await continueAfterSetup(deps, waiting);
    await journal.log(`the withdrawal it was made for, ${waiting}, is ${after?.status ?? 'not stored'}${after?.operationID ? ', sent to be signed' : ''}`);
  } catch (err) {
    deps.logger.warn({ withdrawalId: setup.id, waiting, err }, 'vault setup ended; the withdrawal waiting for it moves on at reconciliation');
  }
}

/**
 * Tracks a broadcast withdrawal until it is final (see watch-broadcast.ts for stuck, dropped,
 * replaced, conflicting and reorganised transactions). While it is not, the job puts itself
 * back with a delay instead of failing, so retries stay for real errors; those are retried
 * without end, at most a few minutes apart (confirmJobRetries in queues.ts).
 */
export async function processConfirm(
  deps: PipelineDeps,
  job: Job<QueuedOperationJob>,
  token: string | undefined,
  journal: JobJournal = noJournal,
): Promise<string> {
  const op = await deps.store.get(withdrawalIdOf(job.data));
  if (op.status !== 'BROADCAST') return `nothing to do in ${op.status}`;
  const threshold = deps.registry.get(op.ledgerId).confirmations;
  if (await watchBroadcast(deps, op)) {
    const done = await deps.store.get(op.id);
    await journal.log(`confirmations ${done.confirmations}/${threshold} (${done.status.toLowerCase()})${done.failureReason ? `: ${done.failureReason}` : ''}`);
    if (done.setupFor) await moveOnAfterSetup(deps, done, journal);
    return done.status.toLowerCase();
  }
  await reconcileAttempts(deps, op);
  const now = await deps.store.get(op.id);
  if (
    now.confirmations !== op.confirmations ||
    job.attemptsStarted <= 1 ||
    Boolean(now.stuck) !== Boolean(op.stuck) ||
    now.refused?.invalidateAfter !== op.refused?.invalidateAfter
  ) {
    const refused = now.refused ? `; refused by the node since ${now.refused.since} (${now.refused.answer}), not final` : '';
    await journal.log(`confirmations ${now.confirmations}/${threshold}${now.stuck ? `; stuck: ${now.stuck.reason}` : ''}${refused}`);
  }
  await job.moveToDelayed(Date.now() + deps.config.confirmPollMs, token);
  throw new DelayedError();
}
