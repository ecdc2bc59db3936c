/**
 * Run by the `deposits` phase as a process of its own (`node --expose-gc --import tsx`), so
 * nothing else of the bench sits in its heap: builds the deposit scanner's watched set of the
 * `ethdev` vaults registered under a prefix, as the worker does, and prints one JSON line: how
 * many addresses, how long the build took, and the heap the set holds (heap used with the set
 * alive minus heap used once it is dropped, each after full collections).
 *
 * Arguments: <redisUrl> <key prefix, without its colon>.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { ethereumFamily } from '../adaptors/ethereum/index.js';
import { WatchedSet } from '../src/deposits/watched-set.js';
import { servicePrefix } from '../src/platform/redis-keys.js';
import { Reservations } from '../src/ledger/reservations.js';
import { VaultStore } from '../src/vaults/vault-store.js';

export interface WatchedMemory {
  addresses: number;
  buildSeconds: number;
  bytes: number;
}

async function main(): Promise<void> {
  const [redisUrl, keyPrefix] = process.argv.slice(2) as [string, string];
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const settledHeap = () => {
    for (let i = 0; i < 3; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const prefix = servicePrefix(keyPrefix);
  const logger = pino({ level: 'silent' });
  // The address derivation needs no node: a closed port.
  const adaptor = ethereumFamily.create('ethdev', ethereumFamily.optionsSchema.parse({ rpcUrl: 'http://127.0.0.1:9' }), {
    logger,
    fetch,
    reservations: new Reservations(redis, prefix),
  });
  const normalize = adaptor.depositSource?.normalize?.bind(adaptor.depositSource) ?? ((a: string) => a);
  const vaults = new VaultStore(redis, prefix);
  let set: WatchedSet | undefined = new WatchedSet(adaptor, vaults, { gapLimit: 20, refreshMs: 60_000, normalize });
  const started = performance.now();
  await set.refresh();
  const buildSeconds = (performance.now() - started) / 1000;
  const withSet = settledHeap();
  const addresses = set.size;
  set = undefined;
  const without = settledHeap();
  redis.disconnect();
  const result: WatchedMemory = { addresses, buildSeconds: Math.round(buildSeconds * 10) / 10, bytes: withSet - without };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
