import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import { queuePrefix } from '../platform/redis-keys.js';
import { closeClient, redisClient } from '../platform/redis.js';
import { jobOptions, STALLS_ALLOWED, workersReady } from '../withdrawals/jobs/queues.js';
import type { DepositStore } from './deposit-store.js';
import type { LedgerScanner, PassResult } from './scan-ledger.js';

export const DEPOSIT_QUEUE = 'deposits';

/** What a scan job carries: the ledger only (job data is clear text and editable). */
export interface ScanJob {
  ledgerId: string;
}

/** One scheduler per ledger, the same id in every process: BullMQ keeps one schedule whoever starts it. */
export const scanSchedulerId = (ledgerId: string): string => `scan-deposits-${ledgerId}`;
/** The name the dashboard shows. */
export const scanJobName = (ledgerId: string): string => `scan deposits ${ledgerId}`;

export function createDepositQueue(connection: ConnectionOptions, config: Config): Queue<ScanJob> {
  return new Queue<ScanJob>(DEPOSIT_QUEUE, { connection, prefix: queuePrefix(config.keyPrefix), defaultJobOptions: jobOptions(config) });
}

/** Longest a scan job runs before it hands over to the next one (a long catch-up is many jobs). */
const PASS_MS = 20_000;
const PASS_BLOCKS = 10_000;

/**
 * One scan of one ledger, by whichever worker took the job. Only the worker holding the
 * ledger's scanner lock scans (renewed before every block, so a worker killed mid-scan hands
 * over within the lock's time); the others return at once. The lock saves work only: the
 * cursor's compare-and-set in every step is what keeps two scans from writing an event twice.
 */
export async function runScan(scanner: LedgerScanner, store: DepositStore, lockMs: number): Promise<PassResult | { skipped: string }> {
  const token = randomUUID();
  const L = scanner.ledgerId;
  if (!(await store.lock(L, token, lockMs))) return { skipped: 'another worker scans this ledger' };
  try {
    return await scanner.pass({
      maxBlocks: PASS_BLOCKS,
      deadline: Date.now() + Math.min(PASS_MS, lockMs / 2),
      keepGoing: () => store.lock(L, token, lockMs),
    });
  } finally {
    await store.unlock(L, token);
  }
}

/** The scan schedules (one per ledger scanned here) and the worker that runs them; nothing when this process scans none. */
export async function startDepositWorker(opts: {
  config: Config;
  logger: Logger;
  queue: Queue<ScanJob>;
  store: DepositStore;
  scanners: Map<string, LedgerScanner>;
}): Promise<{ running(): boolean; close(): Promise<void> }> {
  const { config, logger, queue, store, scanners } = opts;
  // Scanning off here (DEPOSIT_LEDGERS=none): no schedule, and no consumer that would take another process's scan jobs.
  if (scanners.size === 0) return { running: () => true, close: async () => undefined };
  for (const ledgerId of scanners.keys()) {
    await queue.upsertJobScheduler(scanSchedulerId(ledgerId), { every: config.depositPollMs }, { name: scanJobName(ledgerId), data: { ledgerId } });
  }
  // Blocking worker connection: it must retry forever rather than fail a command.
  const connection = redisClient(config.redisUrl, { maxRetriesPerRequest: null, connectionName: 'byow-deposits' });
  connection.on('error', (err: Error) => logger.debug({ err: err.message }, 'deposit worker connection error'));
  const worker = new Worker<ScanJob>(
    DEPOSIT_QUEUE,
    async (job: Job<ScanJob>) => {
      const scanner = scanners.get(job.data.ledgerId);
      if (!scanner) return { skipped: `no deposit scanner for ledger '${job.data.ledgerId}' here` };
      return runScan(scanner, store, config.jobLockMs);
    },
    {
      connection,
      prefix: queuePrefix(config.keyPrefix),
      // Stored on each job it takes (`processedBy`): which process scans, on the dashboard.
      name: `${hostname()}:${process.pid}`,
      concurrency: scanners.size,
      lockDuration: config.jobLockMs,
      maxStalledCount: STALLS_ALLOWED,
    },
  );
  worker.on('error', (err) => logger.error({ err: err.message, queue: DEPOSIT_QUEUE }, 'worker error'));
  worker.on('failed', (job, err) => logger.warn({ ledgerId: job?.data.ledgerId, err: err.message }, 'deposit scan failed'));
  await workersReady(worker);
  return {
    running: () => worker.isRunning() && !worker.closing,
    close: async () => {
      await worker.close();
      await closeClient(connection);
    },
  };
}
