import { Queue, type ConnectionOptions, type DefaultJobOptions, type Job, type JobsOptions } from 'bullmq';
import type { Config } from '../../config/load-config.js';
import { aboutOperation, jobTitle, type JobAbout } from './job-about.js';
import type { Operation } from '../model/operation.js';
import { queuePrefix } from '../../platform/redis-keys.js';

/** What a worker reads of a job: the withdrawal id only. Job data is clear text and editable from the dashboard. */
export interface OperationJob {
  withdrawalId: string;
}

/** Job data as added: the id, plus a description for the dashboard that no worker reads. */
export interface OperationJobData extends OperationJob {
  about?: JobAbout;
}

/**
 * Job data as a worker may find it in Redis: jobs added by earlier versions carry the
 * withdrawal id as `operationId`, and they may still wait in a queue after an upgrade.
 */
export interface QueuedOperationJob {
  withdrawalId?: string;
  /** The withdrawal id under its earlier name; read by `withdrawalIdOf` only. */
  operationId?: string;
  about?: JobAbout;
}

/**
 * The withdrawal a job is about: the one place job data is read for it, old shape included.
 * Data with neither field (edited by hand) gives undefined here and the store finds nothing.
 */
export function withdrawalIdOf(data: QueuedOperationJob): string {
  return (data.withdrawalId ?? data.operationId) as string;
}

/**
 * Stalls a job survives. A stall is a worker that died holding the job (SIGKILL, OOM, a lost
 * machine), not the job's fault, and BullMQ counts stalls over a job's whole life: a confirm
 * job polls for hours and a webhook delivery retries for a day, so two worker deaths in that
 * time failed it for good (BullMQ's default is 1), leaving a withdrawal BROADCAST or a
 * subscriber's line stuck forever. Every job reloads what it works on and is idempotent; the
 * bound only stops a job that itself kills every worker that takes it.
 */
export const STALLS_ALLOWED = 100;

/**
 * Waits until queue workers have finished starting (their connections ready, Redis's version
 * read). BullMQ's close of a worker still starting on a shared connection drops its listeners,
 * and a start-up command that connection then loses ("Connection is closed.") is thrown with
 * nobody listening: an unhandled error that can end the process. So every start awaits this,
 * and no close meets a start.
 */
export async function workersReady<W extends { waitUntilReady(): Promise<unknown> }>(...workers: W[]): Promise<void> {
  await Promise.all(workers.map((w) => w.waitUntilReady()));
}

export const QUEUE = { broadcast: 'broadcast', confirm: 'confirm', reconcile: 'reconcile', replace: 'replace' } as const;

export interface Queues {
  broadcast: Queue<OperationJobData>;
  confirm: Queue<OperationJobData>;
  reconcile: Queue;
  /** Sends signed replacements (speed-up, cancel) of broadcast withdrawals. */
  replace: Queue<OperationJobData>;
  all(): Queue[];
  close(): Promise<void>;
}

/**
 * Entries a job's log keeps (the newest; runJournaled writes one per run). A broadcast waiting
 * for its predecessor runs again and again, each run adding its entry; without a bound one long
 * wait grows its log in Redis without end.
 */
export const JOB_LOG_LINES = 100;

export function jobOptions(config: Config): DefaultJobOptions {
  return {
    removeOnComplete: { count: config.retainCompletedJobs },
    removeOnFail: { count: config.retainFailedJobs },
    keepLogs: JOB_LOG_LINES,
  };
}

/** BullMQ job ids may not contain ':'; withdrawal ids are UUIDs, so a dash is enough. */
export const broadcastJobId = (withdrawalId: string): string => `broadcast-${withdrawalId}`;
export const confirmJobId = (withdrawalId: string): string => `confirm-${withdrawalId}`;
export const replaceJobId = (withdrawalId: string, attempt: number): string => `replace-${withdrawalId}-${attempt}`;

/**
 * The one place operation jobs are added: a deterministic id (a repeat adds nothing), the
 * withdrawal id, and a name and `about` that tell an operator which withdrawal it is.
 */
export async function addBroadcastJob(queues: Pick<Queues, 'broadcast'>, op: Operation, opts: JobsOptions = {}): Promise<Job<OperationJobData>> {
  const about = aboutOperation(op);
  return queues.broadcast.add(jobTitle(QUEUE.broadcast, about), { withdrawalId: op.id, about }, { ...opts, jobId: broadcastJobId(op.id) });
}

/** The replacement (speed-up, cancel) attempt `attempt` of `op`, once its signatures are in. */
export async function addReplaceJob(queues: Pick<Queues, 'replace'>, op: Operation, attempt: number): Promise<Job<OperationJobData>> {
  const about = aboutOperation(op);
  return queues.replace.add(jobTitle(QUEUE.replace, about), { withdrawalId: op.id, about }, { jobId: replaceJobId(op.id, attempt) });
}

export async function addConfirmJob(queues: Pick<Queues, 'confirm'>, op: Operation, delayMs: number): Promise<Job<OperationJobData>> {
  const about = aboutOperation(op);
  return queues.confirm.add(jobTitle(QUEUE.confirm, about), { withdrawalId: op.id, about }, { jobId: confirmJobId(op.id), delay: delayMs });
}

/** addConfirmJob for many operations in one round trip (an account sender's run). */
export async function addConfirmJobs(queues: Pick<Queues, 'confirm'>, ops: Operation[], delayMs: number): Promise<void> {
  if (ops.length === 0) return;
  await queues.confirm.addBulk(
    ops.map((op) => {
      const about = aboutOperation(op);
      return { name: jobTitle(QUEUE.confirm, about), data: { withdrawalId: op.id, about }, opts: { jobId: confirmJobId(op.id), delay: delayMs } };
    }),
  );
}

/** The reconciler's repeating job: one scheduler id, so every worker process that starts it keeps the one schedule. */
export async function scheduleReconcile(queues: Pick<Queues, 'reconcile'>, everyMs: number): Promise<void> {
  await queues.reconcile.upsertJobScheduler(QUEUE.reconcile, { every: everyMs }, { name: QUEUE.reconcile });
}

/**
 * Brings the `about` of an operation's jobs up to date (status, txids, confirmations, failure
 * reason), so a finished broadcast job also reads CONFIRMED once its confirm job got there.
 */
export async function describeOperationJobs(queues: Pick<Queues, 'broadcast' | 'confirm'>, op: Operation): Promise<void> {
  const jobs = await Promise.all([queues.broadcast.getJob(broadcastJobId(op.id)), queues.confirm.getJob(confirmJobId(op.id))]);
  for (const job of jobs) if (job) await describeJob(job, op);
}

/** Rewrites one job's `about` when it no longer matches the operation. */
export async function describeJob(job: Job<QueuedOperationJob>, op: Operation): Promise<void> {
  const about = aboutOperation(op);
  if (JSON.stringify(job.data.about) !== JSON.stringify(about)) await job.updateData({ withdrawalId: op.id, about });
}

/** The backoff type of confirm jobs; its delays come from the confirm worker's strategy (confirmRetryDelayMs). */
export const CONFIRM_BACKOFF = 'confirm-capped';
const CONFIRM_RETRY_FIRST_MS = 1000;
/** The longest wait between two tries of a confirm job after errors: a recovered node is looked at again within it. */
export const CONFIRM_RETRY_MAX_MS = 5 * 60_000;
/**
 * Tries of a confirm job after errors, in effect without end: past the first few, each waits at
 * least half of CONFIRM_RETRY_MAX_MS, so these last thousands of years. A round figure, since
 * BullMQ's Lua keeps 14 significant digits of it.
 */
export const CONFIRM_ATTEMPTS = 1_000_000_000;

/**
 * Retries of a confirm job. A confirm job is an idempotent look at the chain and the only thing
 * that ever ends a BROADCAST withdrawal, so it never runs out of attempts: node timeouts, 429s
 * and Redis blips add up over its whole life (polls do not count) and, with a bound, a long
 * enough outage would fail it for good and leave its withdrawal BROADCAST forever. Its delay
 * is capped for the same reason: doubling without a cap made a job that had met 17 errors
 * wait 9-18 hours before it looked again.
 */
export const confirmJobRetries = { attempts: CONFIRM_ATTEMPTS, backoff: { type: CONFIRM_BACKOFF } } satisfies DefaultJobOptions;

/**
 * The wait after a confirm job's `attemptsMade`-th error (BullMQ counts the one just met):
 * doubling from 1 s up to CONFIRM_RETRY_MAX_MS, and of that between half and all (jitter
 * spreads the jobs of one outage). `random` is in [0, 1).
 */
export function confirmRetryDelayMs(attemptsMade: number, random: number = Math.random()): number {
  const ceiling = Math.min(CONFIRM_RETRY_MAX_MS, CONFIRM_RETRY_FIRST_MS * 2 ** Math.max(0, attemptsMade - 1));
  return Math.floor(ceiling / 2 + (random * ceiling) / 2);
}

export function createQueues(connection: ConnectionOptions, config: Config): Queues {
  const opts = { connection, prefix: queuePrefix(config.keyPrefix), defaultJobOptions: jobOptions(config) };
  const broadcast = new Queue<OperationJobData>(QUEUE.broadcast, {
    ...opts,
    defaultJobOptions: {
      ...opts.defaultJobOptions,
      attempts: config.broadcastAttempts,
      backoff: { type: 'exponential', delay: 1000, jitter: 0.5 },
    },
  });
  const confirm = new Queue<OperationJobData>(QUEUE.confirm, { ...opts, defaultJobOptions: { ...opts.defaultJobOptions, ...confirmJobRetries } });
  const reconcile = new Queue(QUEUE.reconcile, opts);
  const replace = new Queue<OperationJobData>(QUEUE.replace, {
    ...opts,
    defaultJobOptions: { ...opts.defaultJobOptions, attempts: config.broadcastAttempts, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 } },
  });
  const all = () => [broadcast, confirm, reconcile, replace] as Queue[];
  return {
    broadcast,
    confirm,
    reconcile,
    replace,
    all,
    close: async () => {
      await Promise.all(all().map((q) => q.close()));
    },
  };
}
