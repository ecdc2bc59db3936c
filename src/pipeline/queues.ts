import { Queue, type ConnectionOptions, type DefaultJobOptions } from 'bullmq';
import type { Config } from '../config/load-config.js';

/** Every job carries only the operation id: job data is clear text and editable from the dashboard. */
export interface OperationJob {
  operationId: string;
}

export const QUEUE = { broadcast: 'broadcast', confirm: 'confirm', reconcile: 'reconcile', replace: 'replace' } as const;

export interface Queues {
  broadcast: Queue<OperationJob>;
  confirm: Queue<OperationJob>;
  reconcile: Queue;
  /** Sends signed replacements (speed-up, cancel) of broadcast withdrawals. */
  replace: Queue<OperationJob>;
  all(): Queue[];
  close(): Promise<void>;
}

export function jobOptions(config: Config): DefaultJobOptions {
  return {
    removeOnComplete: { count: config.retainCompletedJobs },
    removeOnFail: { count: config.retainFailedJobs },
  };
}

/** BullMQ job ids may not contain ':'; operation ids are UUIDs, so a dash is enough. */
export const broadcastJobId = (operationId: string): string => `broadcast-${operationId}`;
export const confirmJobId = (operationId: string): string => `confirm-${operationId}`;
export const replaceJobId = (operationId: string, attempt: number): string => `replace-${operationId}-${attempt}`;

export function createQueues(connection: ConnectionOptions, config: Config): Queues {
  const opts = { connection, prefix: config.keyPrefix, defaultJobOptions: jobOptions(config) };
  const broadcast = new Queue<OperationJob>(QUEUE.broadcast, {
    ...opts,
    defaultJobOptions: {
      ...opts.defaultJobOptions,
      attempts: config.broadcastAttempts,
      backoff: { type: 'exponential', delay: 1000, jitter: 0.5 },
    },
  });
  const confirm = new Queue<OperationJob>(QUEUE.confirm, { ...opts, defaultJobOptions: { ...opts.defaultJobOptions, attempts: 50, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 } } });
  const reconcile = new Queue(QUEUE.reconcile, opts);
  const replace = new Queue<OperationJob>(QUEUE.replace, {
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
