import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Operation } from '../model/operation.js';
import type { OperationStore } from '../store/operation-store.js';
import { describeJob, describeOperationJobs, QUEUE, type QueuedOperationJob, type Queues, withdrawalIdOf } from './queues.js';
import { PredecessorPending, SenderBusy } from '../sending/send-order.js';

/** The steps of one job run, written to the job's log (shown in the dashboard's Logs tab). */
export interface JobJournal {
  log(line: string): Promise<void>;
  /**
   * The operation as the run last read or wrote it (undefined: unknown, read it again): the
   * job's description is refreshed from it without reading it again.
   */
  seen?(op: Operation | undefined): void;
}

/** For runs outside a worker (tests, scripts): steps go nowhere. */
export const noJournal: JobJournal = { log: async () => undefined };

/** Lines as a job's log keeps them: each with its time. */
const stamped = (line: string): string => `${new Date().toISOString()} ${line}`;

/** Writes one entry of a job's log. Writing it must never fail the step it describes. */
async function writeLog(job: Job, entry: string, logger: Logger): Promise<void> {
  await job.log(entry).catch((e: Error) => logger.debug({ err: e.message, jobId: job.id }, 'could not write the job log'));
}

/** A journal on a job's log, each line an entry of its own, written at once. */
export function jobJournal(job: Job, logger: Logger): JobJournal {
  return { log: (line) => writeLog(job, stamped(line), logger) };
}

type RunDeps = { store: OperationStore; queues: Pick<Queues, 'broadcast' | 'confirm'>; logger: Logger };

/**
 * Runs one operation job with a journal, then writes the run's lines to the job's log and
 * refreshes its jobs' `about` from the stored operation (status, txids, confirmations, failure
 * reason), whatever the run's outcome.
 * Only the withdrawal id of the job data is read (withdrawalIdOf).
 */
export async function runJournaled<T>(deps: RunDeps, job: Job<QueuedOperationJob>, run: (journal: JobJournal) => Promise<T>): Promise<T> {
  let last: Operation | undefined;
  // The run's lines go to the job's log as one entry when the run ends: an entry is a Redis script,
  // and a line each was the most frequent script of a drain (six per withdrawal). Each keeps its time.
  const lines: string[] = [];
  const journal: JobJournal = {
    log: async (line) => void lines.push(stamped(line)),
    seen: (op) => (last = op),
  };
  const withdrawalId = withdrawalIdOf(job.data);
  try {
    const result = await run(journal);
    await journal.log(`done: ${String(result)}`);
    return result;
  } catch (e) {
    // Waiting for the account's earlier number or its sender is the normal course, not a failed attempt.
    if (e instanceof PredecessorPending || e instanceof SenderBusy) await journal.log(`waits: ${e.message}; it looks again later`);
    else if (!(e instanceof DelayedError)) await journal.log(`attempt ${job.attemptsMade + 1} ended with an error: ${(e as Error).message}`);
    throw e;
  } finally {
    await Promise.all([lines.length ? writeLog(job, lines.join('\n'), deps.logger) : undefined, describeRun(deps, job, withdrawalId, last)]);
  }
}

/** Refreshes the `about` of a run's jobs from the stored operation (runJournaled). */
async function describeRun(deps: RunDeps, job: Job<QueuedOperationJob>, withdrawalId: string, last: Operation | undefined): Promise<void> {
  try {
    // A broadcast run refreshes its own job (in hand) from the record it last saw; its
    // confirmation job is added with a fresh description. A confirmation run refreshes the
    // broadcast job as well: one added by this run may already have found the withdrawal
    // CONFIRMED and said so here, so a run that left it BROADCAST reads it again rather than
    // write an older status back.
    if (job.queueName === QUEUE.broadcast) {
      const op = last && last.status !== 'BROADCAST' ? last : ((await deps.store.find(withdrawalId)) ?? last);
      if (op) await describeJob(job, op);
    } else {
      const op = await deps.store.find(withdrawalId);
      if (op) await describeOperationJobs(deps.queues, op);
    }
  } catch (e) {
    deps.logger.debug({ err: (e as Error).message, jobId: job.id }, 'could not refresh the job description');
  }
}
