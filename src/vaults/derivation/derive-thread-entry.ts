import { Worker } from 'node:worker_threads';
import type { DeriveWorkerData } from './derive-protocol.js';

/**
 * How an address-derivation thread is loaded, built or under tsx. Kept apart from the pool's
 * scheduling (derive-pool.ts). The entry module itself is the composition root's
 * (`src/app/derive-thread.ts`): only it knows the ledger families.
 */

/**
 * A `.ts` entry (development, tests) is loaded through tsx, registered inside the thread: on
 * Node 20 a thread's entry does not pass through loader hooks given in `execArgv`.
 */
export function spawnWorker(entry: URL, workerData: DeriveWorkerData): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { eval: true, workerData });
}
