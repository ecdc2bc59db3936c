/**
 * The signing loop's processing side, which the API process and the worker process both build
 * from the core: operation store, queues and their workers, webhooks, deposit scans and
 * back-fills. What only the API adds (routes, the job dashboard) is in processes.ts, so that
 * the worker process never loads it.
 */
import type { Queue } from 'bullmq';
import { exitOnConfigError } from './config-or-exit.js';
import type { Core } from './core.js';
import { createBackfills, type Backfills } from '../deposits/backfills.js';
import { createDeposits, type Deposits } from '../deposits/deposits.js';
import type { PipelineDeps } from '../withdrawals/pipeline-deps.js';
import { createQueues } from '../withdrawals/jobs/queues.js';
import { SendOrderBook } from '../withdrawals/sending/send-order.js';
import { Ed25519Keys } from '../ledger/signatures.js';
import { startWorkers, type Workers } from '../withdrawals/jobs/workers.js';
import { OperationStore } from '../withdrawals/store/operation-store.js';
import { createWebhooks, type Webhooks } from '../webhooks/webhooks.js';

export interface PipelineCore {
  deps: PipelineDeps;
  webhooks: Webhooks;
  deposits: Deposits;
  backfills: Backfills;
  /** Every queue of the pipeline (the dashboard shows them, the metrics count their jobs). */
  allQueues(): Queue[];
  startWorkers(): Promise<Workers>;
  close(): Promise<void>;
}

/** The pipeline's queues, stores and workers built from the core (its custody connector is required). */
export function createPipelineCore(core: Core): PipelineCore {
  const { config, logger } = core;
  const custody = core.custody;
  if (!custody) throw new Error('CUSTODY_URL is not configured');
  // Before any queue opens: DEPOSIT_LEDGERS naming a ledger it cannot scan stops here.
  const depositDeps = { redis: core.redis, prefix: core.prefix, config, logger, registry: core.registry, vaults: core.vaults, metrics: core.metrics };
  const deposits = createDeposits(depositDeps);
  const queues = createQueues(core.redis, config);
  // Without a listener BullMQ prints every connection error raw on stderr. The shared client
  // (connectRedis) already logs each outage once, so these repeats only go to debug.
  for (const q of queues.all()) q.on('error', (err) => logger.debug({ err: err.message, queue: q.name }, 'queue connection error'));
  const store = new OperationStore(core.redis, core.prefix);
  const deps: PipelineDeps = {
    config,
    logger,
    store,
    registry: core.registry,
    queues,
    custody,
    metrics: core.metrics,
    sendOrder: new SendOrderBook(core.redis, core.prefix),
    vaults: core.vaults,
    ed25519Keys: new Ed25519Keys(),
  };
  const webhooks = createWebhooks({ redis: core.redis, prefix: core.prefix, outboxKey: deps.store.outboxKey, config, logger });
  const backfills = createBackfills(depositDeps);
  const allQueues = () => [...queues.all(), webhooks.queue, deposits.queue, backfills.queue];
  core.metrics.watchQueues(allQueues());
  return {
    deps,
    webhooks,
    deposits,
    backfills,
    allQueues,
    startWorkers: async () => {
      const [pipelineWorkers, webhookWorkers, depositWorker, backfillWorker] = await Promise.all([
        startWorkers(deps, config.redisUrl),
        webhooks.start(),
        deposits.start(),
        backfills.start(),
      ]);
      return {
        running: () => pipelineWorkers.running() && webhookWorkers.running() && depositWorker.running() && backfillWorker.running(),
        close: async () => void (await Promise.all([pipelineWorkers.close(), webhookWorkers.close(), depositWorker.close(), backfillWorker.close()])),
      };
    },
    close: async () => void (await Promise.all([queues.close(), webhooks.close(), deposits.close(), backfills.close()])),
  };
}

/** `create(core)`, or exit 1 with the problems of a setting only the built adaptors can check (DEPOSIT_LEDGERS), after `cleanup`. */
export async function pipelineOrExit<T>(core: Core, create: (core: Core) => T, cleanup?: () => Promise<void> | undefined): Promise<T> {
  try {
    return create(core);
  } catch (e) {
    core.redis.disconnect();
    await cleanup?.();
    return exitOnConfigError(e);
  }
}
