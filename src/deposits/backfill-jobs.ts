import { DelayedError, Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import { queuePrefix } from '../platform/redis-keys.js';
import { closeClient, redisClient } from '../platform/redis.js';
import { jobOptions, STALLS_ALLOWED, workersReady } from '../withdrawals/jobs/queues.js';
import type { BackfillPass, BackfillScanner } from './backfill.js';
import type { BackfillStore, BackfillView } from './backfill-store.js';

/** A queue of its own: a long back-fill never holds a slot the live scans (the `deposits` queue) need. */
export const BACKFILL_QUEUE = 'deposit-backfills';

/** What a back-fill job carries: which back-fill (job data is clear text and editable; the record in Redis is what counts). */
export interface BackfillJob {
  ledgerId: string;
  vaultId: string;
  backfillId: string;
}

/** The name the dashboard shows. */
export const backfillJobName = (ledgerId: string, vaultId: string): string => `backfill deposits ${ledgerId} ${vaultId}`;

/** A pass of a back-fill job: then it steps aside (delayed), so a worker closing hands it over soon and the job's log shows progress. */
const PASS_MS = 20_000;
const PASS_BLOCKS = 100_000;
/** A job that fails outright (Redis gone mid-step) is tried again this often; its cursor keeps what it did. */
const ATTEMPTS = 20;

export function createBackfillQueue(connection: ConnectionOptions, config: Config): Queue<BackfillJob> {
  return new Queue<BackfillJob>(BACKFILL_QUEUE, {
    connection,
    prefix: queuePrefix(config.keyPrefix),
    defaultJobOptions: { ...jobOptions(config), attempts: ATTEMPTS, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 } },
  });
}

export async function enqueueBackfill(queue: Queue<BackfillJob>, b: BackfillView): Promise<void> {
  await queue.add(backfillJobName(b.ledgerId, b.vaultId), { ledgerId: b.ledgerId, vaultId: b.vaultId, backfillId: b.backfillId });
}

/**
 * The worker of back-fill jobs. A job reads for up to PASS_MS, then moves itself to delayed
 * (at once when it made progress, after DEPOSIT_POLL_MS when it waits) until the back-fill is
 * done or over; a worker killed mid-pass leaves the job stalled, and BullMQ gives it to another
 * worker, which goes on from the back-fill's cursor.
 */
export async function startBackfillWorker(opts: { config: Config; logger: Logger; store: BackfillStore; scanners: Map<string, BackfillScanner> }): Promise<{
  running(): boolean;
  /** Lets the current passes end (each hands its job over); `force`: leaves them as a killed worker would, their jobs to stall. */
  close(force?: boolean): Promise<void>;
}> {
  const { config, logger, store, scanners } = opts;
  let closing = false;
  // Blocking worker connection: it must retry forever rather than fail a command.
  const connection = redisClient(config.redisUrl, { maxRetriesPerRequest: null, connectionName: 'byow-deposit-backfills' });
  connection.on('error', (err: Error) => logger.debug({ err: err.message }, 'deposit back-fill worker connection error'));
  const worker = new Worker<BackfillJob>(
    BACKFILL_QUEUE,
    async (job: Job<BackfillJob>, token?: string): Promise<BackfillPass | { skipped: string }> => {
      const scanner = scanners.get(job.data.ledgerId);
      if (!scanner) return { skipped: `no deposit source for ledger '${job.data.ledgerId}' here` };
      const pass = await scanner.pass(job.data, { maxBlocks: PASS_BLOCKS, deadline: Date.now() + PASS_MS, keepGoing: () => !closing });
      if (pass.done || pass.over) return pass;
      const b = await store.get(job.data.vaultId);
      if (b) await job.updateProgress({ height: b.height, toHeight: b.toHeight, found: b.found, ...(pass.waiting ? { waiting: pass.waiting } : {}) });
      await job.moveToDelayed(Date.now() + (pass.waiting ? config.depositPollMs : 0), token);
      throw new DelayedError();
    },
    {
      connection,
      prefix: queuePrefix(config.keyPrefix),
      concurrency: 2,
      lockDuration: config.jobLockMs,
      stalledInterval: Math.max(1000, Math.floor(config.jobLockMs / 2)),
      maxStalledCount: STALLS_ALLOWED,
    },
  );
  worker.on('error', (err) => logger.error({ err: err.message, queue: BACKFILL_QUEUE }, 'worker error'));
  worker.on('failed', (job, err) =>
    logger.warn({ ledgerId: job?.data.ledgerId, vaultId: job?.data.vaultId, err: err.message }, 'deposit back-fill pass failed'),
  );
  await workersReady(worker);
  return {
    running: () => worker.isRunning() && !worker.closing,
    close: async (force = false) => {
      closing = true;
      await worker.close(force);
      await closeClient(connection);
    },
  };
}
