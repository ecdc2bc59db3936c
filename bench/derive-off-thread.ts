/**
 * The alternative to slicing, measured against it in one run: four 10,000-key Bitcoin address
 * batches derived (a) on the main thread in the shared time slices of the API, (b) in worker
 * threads with the results posted back. For each, the main thread's longest and p99
 * event-loop delay (monitorEventLoopDelay) while the batches run.
 *
 *   npx tsx bench/derive-off-thread.ts
 */
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import * as ecc from 'tiny-secp256k1';
import { builtInBitcoinCodec } from '../adaptors/bitcoin/address-codec.js';
import { TimeSlicer } from '../src/http/time-sliced.js';
import { parsePublicKey } from '../src/ledger/public-key.js';

const codec = builtInBitcoinCodec('btc');
if (!codec) throw new Error('no btc codec');
const derive = (k: string) => codec.addressFromPublicKey(parsePublicKey(k, 'secp256k1'));

if (!isMainThread) {
  parentPort?.postMessage((workerData as string[]).map(derive));
} else {
  const keys = Array.from({ length: 10_000 }, () => {
    let priv = randomBytes(32);
    while (!ecc.isPrivate(priv)) priv = randomBytes(32);
    return Buffer.from(ecc.pointFromScalar(priv, true) as Uint8Array).toString('hex');
  });
  const measure = async (name: string, run: () => Promise<unknown>) => {
    const h = monitorEventLoopDelay({ resolution: 2 });
    h.enable();
    const started = performance.now();
    await run();
    h.disable();
    console.log(`${name}: ${Math.round(performance.now() - started)} ms; event-loop delay p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms, max ${(h.max / 1e6).toFixed(1)} ms`);
  };
  const slicer = new TimeSlicer();
  await measure('main thread, shared 8 ms slices', () => Promise.all(Array.from({ length: 4 }, () => slicer.map(keys, derive))));
  await measure('worker threads', () =>
    Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise((resolve, reject) => {
            // The worker loads this file through tsx as the main thread does.
            const boot = `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(import.meta.url)}); })`;
            const w = new Worker(boot, { eval: true, workerData: keys });
            w.once('message', (m) => {
              resolve(m);
              void w.terminate();
            });
            w.once('error', reject);
          }),
      ),
    ),
  );
}
