import { Worker } from 'node:worker_threads';
import type { DeriveWorkerData } from './derive-protocol.js';

/**
 * How an address-derivation thread is loaded: the entry module beside the pool, built or
 * under tsx. Kept apart from the pool's scheduling (derive-pool.ts).
 */

/** The thread entry beside this module, in the module's own language. */
export function defaultEntry(): URL {
  const here = new URL(import.meta.url);
  return new URL(`./derive-worker${here.pathname.endsWith('.ts') ? '.ts' : '.js'}`, here);
}

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
