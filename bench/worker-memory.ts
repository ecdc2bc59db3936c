/**
 * The `memory` phase: many broadcast jobs through one worker process, then its memory once
 * settled. The jobs run the real broadcast processor (with its job log and refreshed
 * description) against one pre-made operation that is already CONFIRMED: it loads it from
 * the store and finishes, so the figure is BullMQ with the configured retention + the worker
 * stack, not a ledger's node.
 */
import type { Redis } from 'ioredis';
import type { Config } from '../src/config/load-config.js';
import type { OperationStore } from '../src/withdrawals/store/operation-store.js';
import { createQueues } from '../src/withdrawals/jobs/queues.js';
import { fakeOperation } from './fixtures.js';
import { waitFor, type Child } from './procs.js';
import { settledMemory, type MemoryFigure } from './settle.js';

export interface WorkerMemory extends MemoryFigure {
  jobs: number;
  retainCompleted: number;
  keptCompleted: number;
  rssAtStartMB: number;
  seconds: number;
}

export async function workerMemory(
  deps: { worker: Child; redis: Redis; store: OperationStore; config: Config; withdrawalId: string; snapshot?: (name: string) => Promise<void> },
  jobs: number,
): Promise<WorkerMemory> {
  const { worker, store, config, withdrawalId } = deps;
  if (!(await store.find(withdrawalId))) await store.create(fakeOperation(withdrawalId, 'ethdev', 'ab'.repeat(32), 'CONFIRMED'));
  const startStats = await worker.stats();
  await deps.snapshot?.('before');
  const queues = createQueues(deps.redis, config);
  try {
    const started = Date.now();
    for (let i = 0; i < jobs; i += 1000) {
      await queues.broadcast.addBulk(Array.from({ length: Math.min(1000, jobs - i) }, () => ({ name: 'broadcast', data: { withdrawalId } })));
    }
    await waitFor(
      'every memory job processed',
      worker,
      async () => {
        const c = await queues.broadcast.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(c).every((v) => v === 0);
      },
      600_000,
    );
    const seconds = (Date.now() - started) / 1000;
    const keptCompleted = (await queues.broadcast.getJobCounts('completed')).completed ?? 0;
    const memory = await settledMemory(worker);
    await deps.snapshot?.('after');
    return {
      jobs,
      retainCompleted: config.retainCompletedJobs,
      keptCompleted,
      rssAtStartMB: Math.round((startStats.memory.rss / 2 ** 20) * 10) / 10,
      seconds: Math.round(seconds * 10) / 10,
      ...memory,
    };
  } finally {
    await queues.close();
  }
}
