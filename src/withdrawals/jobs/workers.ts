import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { processBroadcast } from './broadcast-job.js';
import { processConfirm } from './confirm-job.js';
import { runJournaled } from './job-journal.js';
import { PredecessorPending, SenderBusy, waitDelayMs } from '../sending/send-order.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { confirmRetryDelayMs, QUEUE, scheduleReconcile, STALLS_ALLOWED, type QueuedOperationJob, withdrawalIdOf, workersReady } from './queues.js';
import { processReconcile } from './reconcile-job.js';
import { closeClient, redisClient } from '../../platform/redis.js';
import { processReplacement } from './replacement-job.js';
import { queuePrefix } from '../../platform/redis-keys.js';

export interface Workers {
  /** True while every queue worker of this process runs (not closed, not closing). */
  running(): boolean;
  close(): Promise<void>;
}

/**
 * The queue consumers: broadcast, confirm and the repeating reconciliation. Any number of
 * worker processes may run against one Redis; BullMQ hands each job to one of them, and a
 * job whose worker died is picked up again when its lock expires.
 */
export async function startWorkers(deps: PipelineDeps, redisUrl: string): Promise<Workers> {
  // Workers block on Redis and must retry forever rather than fail a command.
  const connection = redisClient(redisUrl, { maxRetriesPerRequest: null, connectionName: 'byow-worker' });
  const common = {
    connection,
    prefix: queuePrefix(deps.config.keyPrefix),
    concurrency: deps.config.workerConcurrency,
    lockDuration: deps.config.jobLockMs,
    stalledInterval: Math.max(1000, Math.floor(deps.config.jobLockMs / 2)),
    maxStalledCount: STALLS_ALLOWED,
  };

  const broadcast = new Worker<QueuedOperationJob>(
    QUEUE.broadcast,
    async (job, token) => {
      try {
        const waits = job.attemptsStarted - 1;
        return await runJournaled(deps, job, (journal) => processBroadcast(deps, withdrawalIdOf(job.data), journal, { waits, jobId: job.id }));
      } catch (e) {
        if (!(e instanceof PredecessorPending || e instanceof SenderBusy)) throw e;
        // Waiting for an earlier number of the account, or for the job sending the account's
        // transactions, is no failed attempt: the job sleeps, then looks again (send-order.ts).
        deps.logger.debug({ withdrawalId: withdrawalIdOf(job.data) }, e.message);
        await job.moveToDelayed(Date.now() + waitDelayMs(job.attemptsStarted - 1), token);
        throw new DelayedError();
      }
    },
    common,
  );
  broadcast.on('failed', (job: Job<QueuedOperationJob> | undefined, err) => {
    if (!job) return;
    const exhausted = job.attemptsMade >= (job.opts.attempts ?? 1) && !(err instanceof UnrecoverableError);
    // Exhausted retries do not fail the withdrawal: the transaction may be on a node already.
    // Reconciliation starts the broadcast again; permanent rejections fail it in the job itself.
    const log = exhausted ? deps.logger.error.bind(deps.logger) : deps.logger.warn.bind(deps.logger);
    log({ withdrawalId: withdrawalIdOf(job.data), attempt: job.attemptsMade, err: err.message, exhausted }, 'broadcast attempt failed');
  });

  // Retried without end, at most CONFIRM_RETRY_MAX_MS apart (queues.ts, confirmJobRetries).
  const confirm = new Worker<QueuedOperationJob>(
    QUEUE.confirm,
    (job, token) => runJournaled(deps, job, (journal) => processConfirm(deps, job, token, journal)),
    {
      ...common,
      settings: { backoffStrategy: (attemptsMade: number) => confirmRetryDelayMs(attemptsMade) },
    },
  );
  confirm.on('failed', (job, err) => deps.logger.warn({ withdrawalId: job && withdrawalIdOf(job.data), err: err.message }, 'confirmation check failed'));

  const replace = new Worker<QueuedOperationJob>(QUEUE.replace, (job) => processReplacement(deps, withdrawalIdOf(job.data)), common);
  replace.on('failed', (job, err) => deps.logger.warn({ withdrawalId: job && withdrawalIdOf(job.data), err: err.message }, 'replacement attempt failed'));

  const reconcile = new Worker(QUEUE.reconcile, () => processReconcile(deps), { ...common, concurrency: 1 });
  await scheduleReconcile(deps.queues, deps.config.reconcileIntervalSeconds * 1000);

  for (const w of [broadcast, confirm, reconcile, replace] as Worker[])
    w.on('error', (err) => deps.logger.error({ err: err.message, queue: w.name }, 'worker error'));
  await workersReady(broadcast, confirm, reconcile, replace);
  const observe = (queue: string, outcome: string, job: Job | undefined) => {
    if (job?.processedOn && job.finishedOn) deps.metrics?.jobDuration.observe({ queue, outcome }, (job.finishedOn - job.processedOn) / 1000);
  };
  for (const w of [broadcast, confirm, reconcile, replace] as Worker[]) {
    w.on('completed', (job) => observe(w.name, 'completed', job));
    w.on('failed', (job) => observe(w.name, 'failed', job));
  }
  return {
    running: () => [broadcast, confirm, reconcile].every((w) => w.isRunning() && !w.closing),
    close: async () => {
      await Promise.all([broadcast.close(), confirm.close(), reconcile.close(), replace.close()]);
      await closeClient(connection);
    },
  };
}
