/**
 * `npm run bench` (`-- --quick` for a smoke run under a minute): starts what it needs (Redis,
 * anvil, the custody simulator, the real API and worker entry points as their own processes,
 * a bare Express echo server) and measures side by side in one run, so the machine's noise
 * cancels in the ratios. Prints one table and writes bench/results/latest.json.
 */
import { randomUUID } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { computeAddress } from 'ethers';
import { payments, networks } from 'bitcoinjs-lib';
import { StrKey } from '@stellar/stellar-sdk';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import * as ecc from 'tiny-secp256k1';
import { families } from '../adaptors/index.js';
import { loadConfig } from '../src/config/load-config.js';
import { startCustodySimulator } from '../src/custody-simulator/index.js';
import { toCustodyKeyId } from '../src/ledger/public-key.js';
import { OperationStore } from '../src/pipeline/operation-store.js';
import type { Operation } from '../src/pipeline/operation.js';
import { createQueues } from '../src/pipeline/queues.js';
import { DevChainFunder } from '../adaptors/ethereum/local-node/dev-chain.js';
import { freePort } from '../src/sandbox/free-port.js';
import { startAnvil } from '../adaptors/ethereum/local-node/local-anvil.js';
import { ensureRedis } from '../src/sandbox/local-redis.js';
import { prepareCallbacks, randomKeys } from './fixtures.js';
import { statusUnderBatches, type StatusUnderBatches } from './status-under-batches.js';
import type { LoadResult } from './load.js';
import { answers, buildDist, logSays, RESULTS, runLoad, startNode, waitFor, type Child, type StartOptions } from './procs.js';
import { workerMemory, type WorkerMemory } from './worker-memory.js';
import { apiMemory, type ApiMemory } from './api-memory.js';

const quick = process.argv.includes('--quick');
// `-- --only=ingest,pipeline` runs only the named phases (ingest, address, status, api-memory, pipeline, memory).
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const want = (phase: string): boolean => !only || only.includes(phase);
const SIZES = quick
  ? { callbacks: 1_500, warmup: 300, connections: 50, addressSeconds: 1, withdrawals: 100, jobs: 5_000, apiRequests: 2_000 }
  : { callbacks: 20_000, warmup: 2_000, connections: 50, addressSeconds: 4, withdrawals: 1_000, jobs: 100_000, apiRequests: 24_000 };
const BATCH = 1_000;
const SECRET = 'bench-callback-secret-0123456789';
const API_KEY = 'bench-api-key-0123456789abcdef';
const RECIPIENT = '0x00000000000000000000000000000000000000B0';
const run = randomUUID().slice(0, 8);
const MB = 1024 * 1024;
const log = (m: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${m}\n`);
const t0 = performance.now();

const pct = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
};
const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;

function serviceEnv(redisUrl: string, prefix: string, port: number, ledgers: object, custodyUrl: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    SANDBOX: 'false',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    LEDGERS: JSON.stringify(ledgers),
    API_KEYS: JSON.stringify([{ name: 'bench', key: API_KEY, scopes: ['read', 'withdraw', 'admin'] }]),
    CUSTODY_URL: custodyUrl,
    CALLBACK_SECRET: SECRET,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    IN_PROCESS_WORKER: 'false',
    // The spec's open mode, unlimited: the figures are throughput and latency, not the per-client limit.
    OPEN_ROUTES_ANONYMOUS: 'true',
    OPEN_ROUTES_RATE_PER_MINUTE: '0',
  };
}

async function startApi(name: string, env: Record<string, string>, opts: StartOptions = {}): Promise<{ child: Child; url: string }> {
  // BENCH_CPU_PROF=1 writes a V8 CPU profile of the API to bench/results/prof/ when it stops.
  const child = startNode(name, 'src/main.ts', [], env, { profile: Boolean(process.env.BENCH_CPU_PROF), ...opts });
  const url = `http://127.0.0.1:${env.PORT}`;
  await waitFor(`${name} start`, child, () => answers(`${url}/api/v1.0/config`));
  return { child, url };
}

async function startWorker(name: string, env: Record<string, string>, opts: StartOptions = {}): Promise<Child> {
  // Each worker serves its /status and /metrics on a port of its own.
  const child = startNode(name, 'src/worker-main.ts', [], { ...env, WORKER_PORT: String(await freePort()) }, { ...opts, preload: true });
  await waitFor(`${name} start`, child, logSays(child, 'worker started'));
  return child;
}

interface Figures {
  callbacks?: { service: LoadResult; echo: LoadResult; ratio: number; enqueued: number };
  address?: Record<string, { httpKeysPerSec: number; rawKeysPerSec: number; ratio: number; batchP50Ms: number }>;
  statusUnderBatches?: StatusUnderBatches;
  pipeline?: {
    withdrawals: number;
    created: number;
    createSeconds: number;
    firstCallbackToLastBroadcastSeconds: number;
    broadcastsPerSecond: number;
    jobMsP50: number;
    jobMsP99: number;
    rpcMsP50: number;
    overheadMsP50: number;
    overheadMsP99: number;
    callbackToBroadcastMsP50: number;
    nonces: { first: number; last: number; count: number; contiguous: boolean; chainCount: number };
    failed: number;
    workerRssMB: number;
  };
  memory?: { tsx: WorkerMemory; built: WorkerMemory };
  apiMemory?: { tsx?: ApiMemory; built?: ApiMemory };
}

async function main(): Promise<void> {
  const figures: Figures = {};
  const stops: (() => Promise<unknown>)[] = [];
  const prefix = `bench-${run}`;
  let redisUrl = '';
  try {
    const redisServer = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { log });
    stops.push(redisServer.stop);
    redisUrl = redisServer.url;
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    stops.push(async () => redis.disconnect());
    const anvil = await startAnvil();
    stops.push(anvil.stop);

    // One API process (src/main.ts) and, from the pipeline phase on, one worker process
    // (src/worker-main.ts), as deployed; the custody simulator runs here.
    const port = await freePort();
    const accepted = new Map<string, number>();
    let firstCallback = Infinity;
    const custody = await startCustodySimulator({
      secret: SECRET,
      callbackBaseUrl: `http://127.0.0.1:${port}`,
      quorum: { approvers: 1, required: 1, approvalDelayMs: 0 },
      fetch: async (input, init) => {
        firstCallback = Math.min(firstCallback, Date.now());
        const res = await fetch(input, init);
        if (res.ok && typeof init?.body === 'string') {
          for (const d of (JSON.parse(init.body) as { dataToSign: string[] }).dataToSign) accepted.set(d.toLowerCase(), Date.now());
        }
        return res;
      },
    });
    stops.push(custody.stop);
    const ledgers = {
      ethdev: { rpcUrl: anvil.url, confirmations: 1 },
      // Address derivation needs no node: closed ports.
      btcregtest: { backend: 'esplora', url: 'http://127.0.0.1:9' },
      stellardev: { horizonUrl: 'http://127.0.0.1:9' },
    };
    const env = serviceEnv(redisUrl, prefix, port, ledgers, custody.url);
    const config = loadConfig(env, families, 'bench');
    const store = new OperationStore(redis, `${prefix}:`);
    const echoPort = await freePort();
    const echo = startNode('echo', 'bench/echo-server.ts', [String(echoPort)], {});
    stops.push(echo.stop);
    const api = await startApi('api', env);
    stops.push(api.child.stop);
    await waitFor('echo server', echo, () => answers(`http://127.0.0.1:${echoPort}/`));
    log(`redis ${redisUrl}, anvil ${anvil.url}, api ${api.url}, echo :${echoPort}`);

    // ---------------------------------------------------------------- callback ingest
    if (want('ingest')) {
      const warmFile = path.join(RESULTS, 'callbacks-warmup.jsonl');
      const mainFile = path.join(RESULTS, 'callbacks.jsonl');
      log(`pre-creating ${SIZES.warmup + SIZES.callbacks} operations with signed callbacks`);
      await prepareCallbacks(store, 'ethdev', SIZES.warmup, warmFile, `warm-${run}`);
      await prepareCallbacks(store, 'ethdev', SIZES.callbacks, mainFile, `main-${run}`);
      const cbUrl = `${api.url}/api/v1.0/sign_complete_callback?ledgerId=ethdev`;
      const echoUrl = `http://127.0.0.1:${echoPort}/echo`;
      const c = SIZES.connections;
      log(`callback ingest: warm-up, then ${SIZES.callbacks} requests each to the echo server and the receiver, ${c} connections`);
      const common = { method: 'POST' as const, connections: c, hmacSecret: SECRET };
      const [, warm, echoResult, service] = await runLoad([
        { ...common, url: echoUrl, amount: SIZES.warmup, bodiesFile: warmFile },
        { ...common, url: cbUrl, amount: SIZES.warmup, bodiesFile: warmFile },
        { ...common, url: echoUrl, amount: SIZES.callbacks, bodiesFile: mainFile },
        { ...common, url: cbUrl, amount: SIZES.callbacks, bodiesFile: mainFile },
      ]) as [LoadResult, LoadResult, LoadResult, LoadResult];
      if (warm.non2xx) throw new Error(`${warm.non2xx} warm-up callbacks were refused; see ${api.child.log}`);
      const queues = createQueues(redis, config);
      const counts = await queues.broadcast.getJobCounts('waiting', 'paused', 'prioritized');
      // The fake operations must not reach the worker or the reconciler of the next phases.
      await queues.broadcast.obliterate({ force: true });
      await redis.del(`${prefix}:open-ops`);
      await queues.close();
      const enqueued = Object.values(counts).reduce((x, y) => x + y, 0);
      figures.callbacks = { service, echo: echoResult, ratio: service.rps / echoResult.rps, enqueued };
      log(`callbacks ${r1(service.rps)} req/s (p99 ${service.p99} ms) vs echo ${r1(echoResult.rps)} req/s; ${enqueued} jobs enqueued`);
    }

    // ---------------------------------------------------------------- address-from-publickey
    if (want('address')) {
      // 1,000 keys per request over one connection, vs the ledger's library looping over the same keys here.
      const keys = randomKeys(BATCH);
      const spki = keys.secp.map((p) => toCustodyKeyId({ scheme: 'secp256k1', bytes: ecc.pointCompress(p, true) }));
      const rawLoops: Record<string, { keys: string[]; derive: (k: string) => string }> = {
        ethdev: { keys: spki, derive: (k) => computeAddress(`0x${k.slice(46)}`) },
        btcregtest: {
          keys: spki,
          derive: (k) => payments.p2wpkh({ pubkey: ecc.pointCompress(Buffer.from(k.slice(46), 'hex'), true), network: networks.regtest }).address as string,
        },
        stellardev: { keys: keys.ed.map((b) => b.toString('hex')), derive: (k) => StrKey.encodeEd25519PublicKey(Buffer.from(k, 'hex')) },
      };
      const specs = [];
      for (const [ledgerId, loop] of Object.entries(rawLoops)) {
        const file = path.join(RESULTS, `keys-${ledgerId}.jsonl`);
        writeFileSync(file, `${JSON.stringify({ keys: loop.keys })}\n`);
        const url = `${api.url}/api/v1.0/ledgers/${ledgerId}/address-from-publickey`;
        const check = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ keys: loop.keys }) });
        const body = (await check.json()) as { items: { address: string }[] };
        if (check.status !== 200 || loop.keys.some((k, i) => body.items[i]?.address !== loop.derive(k))) {
          throw new Error(`${ledgerId}: address-from-publickey disagrees with the library: ${JSON.stringify(body).slice(0, 300)}`);
        }
        specs.push({ url, method: 'POST' as const, connections: 1, amount: 3, bodiesFile: file }, { url, method: 'POST' as const, connections: 1, duration: SIZES.addressSeconds, bodiesFile: file });
      }
      log(`address-from-publickey: ${SIZES.addressSeconds} s of ${BATCH}-key batches per ledger`);
      const results = await runLoad(specs);
      figures.address = {};
      for (const [i, [ledgerId, loop]] of Object.entries(rawLoops).entries()) {
        const http = results[2 * i + 1] as LoadResult;
        for (const k of loop.keys) loop.derive(k);
        let n = 0;
        const started = performance.now();
        while (performance.now() - started < SIZES.addressSeconds * 1000) {
          for (const k of loop.keys) loop.derive(k);
          n += loop.keys.length;
        }
        const raw = n / ((performance.now() - started) / 1000);
        // One connection: keys/s is the batch size over the mean time of a batch.
        const httpKeys = (BATCH * 1000) / http.mean;
        figures.address[ledgerId] = { httpKeysPerSec: Math.round(httpKeys), rawKeysPerSec: Math.round(raw), ratio: httpKeys / raw, batchP50Ms: http.p50 };
        log(`address ${ledgerId}: ${Math.round(httpKeys)} keys/s over HTTP vs ${Math.round(raw)} raw`);
      }
    }

    // ---------------------------------------------------------------- /status under four 10,000-key batches
    if (want('status')) {
      const big = randomKeys(quick ? 2_000 : 10_000).secp.map((p) => toCustodyKeyId({ scheme: 'secp256k1', bytes: ecc.pointCompress(p, true) }));
      figures.statusUnderBatches = await statusUnderBatches(api.url, 'btcregtest', big);
      const f = figures.statusUnderBatches;
      log(`/status under ${f.batches} batches of ${f.keysPerBatch} keys: p50 ${f.statusMsP50} / p99 ${f.statusMsP99} / max ${f.statusMsMax} ms over ${f.statusCount} requests (${f.batchesMs} ms)`);
    }

    // The service compiled to JavaScript, run by plain node as the image runs it: built once, when a phase needs it.
    let builtDir: Promise<string> | undefined;
    const built = () => {
      if (!builtDir) {
        log('building the service to JavaScript (bench/results/dist)');
        builtDir = buildDist();
      }
      return builtDir;
    };

    // ---------------------------------------------------------------- API memory
    if (want('api-memory')) {
      // A fresh API process each (through tsx as `npm start` runs it, then built), with the
      // open routes' default access and rate limit: the figure is the service as deployed.
      const { OPEN_ROUTES_ANONYMOUS: _a, OPEN_ROUTES_RATE_PER_MINUTE: _r, ...deployed } = env;
      figures.apiMemory = {};
      for (const how of ['tsx', 'built'] as const) {
        const memPort = await freePort();
        const name = how === 'tsx' ? 'api-memory' : 'api-memory-built';
        const memApi = await startApi(name, { ...deployed, PORT: String(memPort), PUBLIC_URL: `http://127.0.0.1:${memPort}` }, { preload: true, ...(how === 'built' ? { built: await built() } : {}) });
        stops.push(memApi.child.stop);
        log(`api-memory (${how}): ${SIZES.apiRequests} mixed requests to a fresh API process`);
        const m = await apiMemory(
          { api: memApi, custody, store, apiKey: API_KEY, callbackSecret: SECRET, run, snapshot: (n) => heapSnapshot(memApi.child, `${name}-${n}`) },
          SIZES.apiRequests,
        );
        await memApi.child.stop();
        figures.apiMemory[how] = m;
        log(`api-memory (${how}): ${JSON.stringify(m)}`);
      }
    }

    // ---------------------------------------------------------------- pipeline
    const worker = await startWorker('worker', env);
    stops.push(worker.stop);
    if (want('pipeline')) {
      const n = SIZES.withdrawals;
      const vault = custody.sim.createVault('ECDSA', { ledger: 'ethdev' });
      const call = async (method: string, p: string, body?: unknown) => {
        const res = await fetch(api.url + p, {
          method,
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, any> };
      };
      const reg = await call('POST', '/api/v1.0/admin/vaults', { vaultId: vault.vaultId, ledgerId: 'ethdev', publicKey: vault.publicKey });
      if (reg.status !== 201) throw new Error(`vault registration: ${JSON.stringify(reg.body)}`);
      const address = reg.body.address as string;
      const funder = new DevChainFunder(anvil.url);
      await funder.sendEth(address, 100n * 10n ** 18n);
      funder.destroy();

      log(`pipeline: ${n} ETH withdrawals at once (64 requests in flight), quorum delay 0`);
      const createStart = Date.now();
      let nextIndex = 0;
      const operationIDs: string[] = [];
      const refusals: string[] = [];
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (nextIndex < n) {
            const i = nextIndex++;
            const r = await call('POST', `/api/v1.0/vaults/${vault.vaultId}/withdrawals`, { recipientAddress: RECIPIENT, amount: '0.001', description: `bench ${i}` });
            if (r.status === 200) operationIDs.push(r.body.operationID as string);
            else refusals.push(`${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
          }
        }),
      );
      const createSeconds = (Date.now() - createStart) / 1000;
      if (refusals.length) log(`${refusals.length} withdrawals refused, e.g. ${refusals[0]}`);
      let ops: Operation[] = [];
      await waitFor(
        'every withdrawal broadcast',
        worker,
        async () => {
          ops = (await store.listForVault(vault.vaultId, 0, n + 10)).items;
          return ops.length === operationIDs.length && ops.every((o) => ['BROADCAST', 'CONFIRMED', 'FAILED'].includes(o.status));
        },
        300_000,
      );
      const broadcastAt = (o: Operation) => Date.parse(o.history.find((h) => h.status === 'BROADCAST')?.at ?? '');
      const sent = ops.filter((o) => Number.isFinite(broadcastAt(o)));
      const lastBroadcast = Math.max(...sent.map(broadcastAt));
      const stats = await worker.stats();
      const rpcByTxid = new Map(stats.sends.map((s) => [s.txid.toLowerCase(), s.ms]));
      const queue = new Queue('broadcast', { connection: redis, prefix });
      const jobs = await queue.getJobs(['completed'], 0, n + 10);
      await queue.close();
      const opById = new Map(ops.map((o) => [o.id, o]));
      const jobMs: number[] = [];
      const rpcMs: number[] = [];
      const overhead: number[] = [];
      for (const j of jobs) {
        const op = opById.get((j.data as { operationId: string }).operationId);
        const rpc = op?.txids[0] ? rpcByTxid.get(op.txids[0].toLowerCase()) : undefined;
        if (!op || rpc === undefined || !j.processedOn || !j.finishedOn) continue;
        jobMs.push(j.finishedOn - j.processedOn);
        rpcMs.push(rpc);
        overhead.push(j.finishedOn - j.processedOn - rpc);
      }
      const callbackToBroadcast = sent.map((o) => broadcastAt(o) - (accepted.get(o.unsigned.payloads[0]?.digest ?? '') ?? NaN)).filter(Number.isFinite);

      // No nonce gap: the vault's transactions carry exactly the nonces 0..n-1.
      const nonces: number[] = [];
      const txids = sent.map((o) => o.txids[0] as string);
      for (let i = 0; i < txids.length; i += 100) {
        const batch = txids.slice(i, i + 100).map((h, k) => ({ jsonrpc: '2.0', id: k, method: 'eth_getTransactionByHash', params: [h] }));
        const res = (await (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) })).json()) as {
          result: { nonce: string } | null;
        }[];
        for (const r of res) if (r.result) nonces.push(Number(BigInt(r.result.nonce)));
      }
      nonces.sort((x, y) => x - y);
      const countRes = (await (
        await fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionCount', params: [address, 'latest'] }),
        })
      ).json()) as { result: string };
      const chainCount = Number(BigInt(countRes.result));
      figures.pipeline = {
        withdrawals: n,
        created: operationIDs.length,
        createSeconds: r2(createSeconds),
        firstCallbackToLastBroadcastSeconds: r2((lastBroadcast - firstCallback) / 1000),
        broadcastsPerSecond: r1(sent.length / ((lastBroadcast - firstCallback) / 1000)),
        jobMsP50: r1(pct(jobMs, 50)),
        jobMsP99: r1(pct(jobMs, 99)),
        rpcMsP50: r1(pct(rpcMs, 50)),
        overheadMsP50: r1(pct(overhead, 50)),
        overheadMsP99: r1(pct(overhead, 99)),
        callbackToBroadcastMsP50: r1(pct(callbackToBroadcast, 50)),
        nonces: {
          first: nonces[0] ?? -1,
          last: nonces[nonces.length - 1] ?? -1,
          count: nonces.length,
          contiguous: nonces.length === n && nonces.every((x, i) => x === i),
          chainCount,
        },
        failed: ops.filter((o) => o.status === 'FAILED').length,
        workerRssMB: r1(stats.memory.rss / MB),
      };
      log(`pipeline: ${JSON.stringify(figures.pipeline)}`);
    }

    // ---------------------------------------------------------------- worker memory
    if (want('memory')) {
      // The same worker process (run through tsx, as `npm run worker` does) goes on with many
      // more jobs; then a worker compiled to JavaScript and run by plain node, as the image runs it.
      const memDeps = { redis, store, config, operationId: `mem-${run}` };
      log(`memory: ${SIZES.jobs} jobs through the worker (tsx; RETAIN_COMPLETED_JOBS ${config.retainCompletedJobs})`);
      const tsx = await workerMemory({ ...memDeps, worker, snapshot: (n) => heapSnapshot(worker, `worker-${n}`) }, SIZES.jobs);
      log(`memory (tsx): ${JSON.stringify(tsx)}`);
      await worker.stop();
      const builtWorker = await startWorker('worker-built', env, { built: await built() });
      stops.push(builtWorker.stop);
      const rssAtStartMB = r1((await builtWorker.stats()).memory.rss / MB);
      log(`memory: ${SIZES.jobs} jobs through the built worker (node dist/src/worker-main.js, started at ${rssAtStartMB} MB)`);
      const node = await workerMemory({ ...memDeps, worker: builtWorker, snapshot: (n) => heapSnapshot(builtWorker, `worker-built-${n}`) }, SIZES.jobs);
      await builtWorker.stop();
      figures.memory = { tsx, built: node };
      log(`memory (built): ${JSON.stringify(node)}`);
    }

    report(figures);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    if (redisUrl) await cleanRedis(redisUrl, [prefix]).catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
  }
}

/**
 * BENCH_HEAP_SNAPSHOT=1 writes a V8 heap snapshot of a service child to
 * bench/results/heap/<name>.heapsnapshot (open two in Chrome DevTools' Memory tab, or
 * summarise them with bench/heap-summary.ts, to see what holds the heap).
 */
async function heapSnapshot(child: Child, name: string): Promise<void> {
  if (!process.env.BENCH_HEAP_SNAPSHOT) return;
  const dir = path.join(RESULTS, 'heap');
  mkdirSync(dir, { recursive: true });
  log(`heap snapshot ${await child.heapSnapshot(path.join(dir, `${name}.heapsnapshot`))}`);
}

/** Deletes every key the run wrote (each phase used its own prefix). */
async function cleanRedis(url: string, prefixes: string[]): Promise<void> {
  const redis = new Redis(url);
  try {
    for (const prefix of prefixes) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
        cursor = next;
        if (keys.length) await redis.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

function report(f: Figures): void {
  const rows: [string, string, string, string, string][] = [];
  const yes = (ok: boolean) => (ok ? 'met' : 'MISSED');
  if (f.callbacks) {
    const { service: s, echo: e, ratio } = f.callbacks;
    rows.push([`callback ingest, ${SIZES.connections} conn (req/s)`, `${Math.round(s.rps)}`, `echo ${Math.round(e.rps)}`, `ratio ${r2(ratio)}`, `≥ 0.6: ${yes(ratio >= 0.6)}`]);
    rows.push(['callback ingest p50 / p99 (ms)', `${s.p50} / ${s.p99}`, `echo ${e.p50} / ${e.p99}`, '', `p99 < 50: ${yes(s.p99 < 50)}`]);
    rows.push(['callback ingest non-2xx / jobs enqueued', `${s.non2xx + s.errors} / ${f.callbacks.enqueued}`, '', '', '']);
  }
  for (const [id, a] of Object.entries(f.address ?? {})) {
    rows.push([`address-from-publickey ${id} (keys/s)`, `${a.httpKeysPerSec}`, `raw ${a.rawKeysPerSec}`, `ratio ${r2(a.ratio)}`, `≥ 0.8: ${yes(a.ratio >= 0.8)}`]);
  }
  if (f.statusUnderBatches) {
    const b = f.statusUnderBatches;
    rows.push([`GET /status p50 / p99 (ms), ${b.batches} × ${b.keysPerBatch}-key batches running`, `${b.statusMsP50} / ${b.statusMsP99}`, `max ${b.statusMsMax}, n ${b.statusCount}`, `batches ${b.batchesMs} ms`, `p99 < 20: ${yes(b.statusMsP99 < 20)}`]);
  }
  if (f.pipeline) {
    const p = f.pipeline;
    rows.push([`pipeline ${p.withdrawals} ETH withdrawals: create (s)`, `${p.createSeconds}`, `${p.created} created`, '', '']);
    rows.push(['first callback → last broadcast (s)', `${p.firstCallbackToLastBroadcastSeconds}`, `${p.broadcastsPerSecond}/s`, '', '']);
    rows.push(['broadcast job p50 / p99 (ms)', `${p.jobMsP50} / ${p.jobMsP99}`, `node RPC p50 ${p.rpcMsP50}`, '', '']);
    rows.push(['per-withdrawal overhead beyond RPC p50 / p99 (ms)', `${p.overheadMsP50} / ${p.overheadMsP99}`, '', '', `p50 < 50: ${yes(p.overheadMsP50 < 50)}`]);
    rows.push(['callback accepted → BROADCAST p50 (ms)', `${p.callbackToBroadcastMsP50}`, '(includes queue wait)', '', '']);
    rows.push(['nonces of the vault', `${p.nonces.first}..${p.nonces.last} (${p.nonces.count})`, `chain count ${p.nonces.chainCount}`, '', `no gap: ${yes(p.nonces.contiguous && p.nonces.chainCount === p.withdrawals)}`]);
    rows.push(['failed withdrawals / worker RSS (MB)', `${p.failed} / ${p.workerRssMB}`, '', '', '']);
  }
  if (f.apiMemory) {
    for (const [how, m] of [['built, node', f.apiMemory.built], ['tsx', f.apiMemory.tsx]] as const) {
      if (!m) continue;
      rows.push([
        `API (${how}) after ${m.requests} mixed requests: RSS settled / heap used (MB)`,
        `${m.rssMB} / ${m.heapUsedMB}`,
        `start ${m.rssAtStartMB} / ${m.heapUsedAtStartMB}, after load ${m.rssAfterLoadMB}, peak ${m.peakRssMB}`,
        `heap committed ${m.heapCommittedMB}, ${m.majorGCs} full GCs, metric series ${m.metricSeries.before} → ${m.metricSeries.after}, ${m.violations} contract violations`,
        `< 200: ${yes(m.rssMB < 200)}`,
      ]);
    }
  }
  if (f.memory) {
    for (const [how, m] of [['built, node', f.memory.built], ['tsx', f.memory.tsx]] as const) {
      rows.push([
        `worker (${how}) after ${m.jobs} jobs: RSS settled / heap used (MB)`,
        `${m.rssMB} / ${m.heapUsedMB}`,
        `start ${m.rssAtStartMB}, after load ${m.rssAfterLoadMB}, peak ${m.peakRssMB}`,
        `heap committed ${m.heapCommittedMB}, ${m.majorGCs} full GCs, ${m.keptCompleted} jobs kept`,
        `< 200: ${yes(m.rssMB < 200)}`,
      ]);
    }
  }
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]?.length ?? 0), 4));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGB: r1(totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
  const seconds = r1((performance.now() - t0) / 1000);
  process.stdout.write(
    [
      '',
      `byow bench (${quick ? 'quick' : 'full'}) — ${machine.cpus} cpus (${machine.cpuModel}), node ${machine.node}, ${seconds} s`,
      line(['figure', 'value', 'reference', 'ratio', 'target']),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.map(line),
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(RESULTS, 'latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds, machine, sizes: SIZES, figures: f }, null, 2)}\n`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
