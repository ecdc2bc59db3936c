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

/** A journal on a job's log. Writing it must never fail the step it describes. */
export function jobJournal(job: Job, logger: Logger): JobJournal {
  return {
    log: async (line) => {
      await job.log(`${new Date().toISOString()} ${line}`).catch((e: Error) => logger.debug({ err: e.message, jobId: job.id }, 'could not write the job log'));
    },
  };
}

/**
 * Runs one operation job with a journal, then refreshes its jobs' `about` from the stored
 * operation (status, txids, confirmations, failure reason), whatever the run's outcome.
 * Only the withdrawal id of the job data is read (withdrawalIdOf).
 */
export async function runJournaled<T>(
  deps: { store: OperationStore; queues: Pick<Queues, 'broadcast' | 'confirm'>; logger: Logger },
  job: Job<QueuedOperationJob>,
  run: (journal: JobJournal) => Promise<T>,
): Promise<T> {
  let last: Operation | undefined;
  const journal: JobJournal = { ...jobJournal(job, deps.logger), seen: (op) => (last = op) };
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
}
