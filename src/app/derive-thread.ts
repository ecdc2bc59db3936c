/**
 * A thread of the address-derivation pool (`derive-pool.ts`). It builds the configured ledgers
 * from the registered families (`adaptors/index.ts`) exactly as the API does, so a new ledger
 * family needs no change here, then derives one chunk of keys per message with the route's own
 * per-key function. Ledgers are built without a back end: address derivation never uses one.
 */
import { setPriority } from 'node:os';
import pino from 'pino';
import { parentPort, workerData } from 'node:worker_threads';
import { families } from '../../adaptors/index.js';
import type { AdaptorDeps, LedgerAdaptor } from '../ledger/adaptor.js';
import { LedgerRegistry } from '../ledger/registry.js';
import type { Reservations } from '../ledger/reservations.js';
import { deriveAddress } from '../vaults/derivation/derive-addresses.js';
import { DERIVE_THREAD_NICE, describeCodec, toWire, type ChunkTask, type DeriveWorkerData, type WorkerMessage } from '../vaults/derivation/derive-protocol.js';

/** Stands in for a back-end dependency: any use is a bug, and says so. */
function absent<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get: (_t, prop) => {
      throw new Error(`the address-derivation thread has no ${what} (asked for ${String(prop)})`);
    },
  });
}

function buildRegistry(data: DeriveWorkerData): LedgerRegistry {
  const deps: AdaptorDeps = {
    logger: pino({ level: 'silent' }),
    reservations: absent<Reservations>('reservations'),
    fetch: () => Promise.reject(new Error('the address-derivation thread has no network')),
  };
  const adaptors: LedgerAdaptor[] = [];
  for (const l of data.ledgers) {
    // A family this build does not register (a test's own) is left to the main thread: its codec is not described below.
    const family = families.find((f) => f.family === l.family);
    if (family) adaptors.push(family.create(l.ledgerId, l.options, deps));
  }
  return new LedgerRegistry(adaptors, families);
}

function serve(port: NonNullable<typeof parentPort>): void {
  const registry = buildRegistry(workerData as DeriveWorkerData);
  const post = (m: WorkerMessage) => port.postMessage(m);
  port.on('message', (task: ChunkTask) => {
    let index = task.from;
    try {
      const codec = registry.addressCodec(task.ledgerId);
      const addresses = task.keys.map((text, i) => {
        index = task.from + i;
        return deriveAddress(codec, text, index, task.format);
      });
      post({ type: 'done', addresses });
    } catch (e) {
      post({ type: 'failed', index, error: toWire(e) });
    }
  });
  post({ type: 'ready', codecs: registry.knownIds().map((id) => describeCodec(registry.addressCodec(id))) });
}

/**
 * Derivation is bulk work for one client; the API's event loop answers every other one. On Linux
 * a thread's nice value is its own (the calling thread's, for `setpriority(PRIO_PROCESS, 0)`), so
 * this thread yields the cores to the event loop when both want one. Elsewhere the value is the
 * whole process's: left alone there.
 */
function yieldToTheEventLoop(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(DERIVE_THREAD_NICE);
  } catch {
    // Not allowed (a sandbox without setpriority): derive at the process's own priority.
  }
}

if (!parentPort) throw new Error('derive-thread.ts runs as a worker thread of the API (derive-pool.ts), not on its own');
yieldToTheEventLoop();
serve(parentPort);
