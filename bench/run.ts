/**
 * `npm run bench` (`-- --quick` for a smoke run, `-- --help` for the phases): starts what it
 * needs (Redis, anvil, the other families' local nodes for their drains, the custody emulator,
 * the real API and worker entry points as their own processes, a bare Express echo server)
 * and measures side by side in one run, so the machine's noise
 * cancels in the ratios. Prints one table (bench/table.ts: a row per family and figure, each
 * ending in its ratio against the reference of the same run) and writes bench/results/latest.json.
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { computeAddress } from 'ethers';
import { payments, networks } from 'bitcoinjs-lib';
import { StrKey } from '@stellar/stellar-sdk';
import { Redis } from 'ioredis';
import * as ecc from 'tiny-secp256k1';
import { families } from '../adaptors/index.js';
import { loadConfig } from '../src/config/load-config.js';
import { startInMemoryCustodyEmulator } from '../src/dev/custody-emulator/index.js';
import { toCustodyKeyId } from '../src/ledger/public-key.js';
import { OperationStore } from '../src/withdrawals/store/operation-store.js';
import type { Operation } from '../src/withdrawals/model/operation.js';
import { broadcastJobId, createQueues } from '../src/withdrawals/jobs/queues.js';
import { operationKeys, servicePrefix } from '../src/platform/redis-keys.js';
import { DevChainFunder } from '../adaptors/ethereum/local-node/dev-chain.js';
import { freePort, freePorts } from '../src/dev/free-port.js';
import { startAnvil } from '../adaptors/ethereum/local-node/local-anvil.js';
import { ensureRedis } from '../src/dev/local-redis.js';
import { deleteKeysUnder } from '../src/dev/prefix-keys.js';
import { createPhase, type CreateFigures } from './create-phase.js';
import { signCallback } from '../src/security/callback-hmac.js';
import { keepAliveFetch, type HttpFetch } from '../src/platform/http-client.js';
import { gapsBetween, watchBareSends, type DrainKit, type SendGaps, type ServiceHandle } from './drain-kit.js';
import { ethereumDrainKit } from './drain-ethereum.js';
import { bitcoinDrainKit } from './drain-bitcoin.js';
import { stellarDrainKit } from './drain-stellar.js';
import { solanaDrainKit } from './drain-solana.js';
import { idleLatency, type IdleLatency } from './idle-latency.js';
import { CALLBACK_SHAPES, prepareCallbacks, randomKeys, signatureChecksCpuMs } from './fixtures.js';
import { statusUnderBatches } from './status-under-batches.js';
import { utxoBench } from './utxo.js';
import type { LoadResult } from './load.js';
import {
  answers,
  buildDist,
  cpuSeconds,
  logSays,
  pidCpuSeconds,
  RESULTS,
  runLoad,
  startNode,
  waitFor,
  type Child,
  type ChildCounters,
  type ChildStats,
  type StartOptions,
} from './procs.js';
import { workerMemory } from './worker-memory.js';
import { coreMeter } from './cores.js';
import { apiMemory } from './api-memory.js';
import { depositsBench, type DepositFigures, type DepositSizes } from './deposits.js';
import { formatTable } from './table.js';
import { rows, type DrainFigures, type Figures, type IngestFigures } from './figures.js';
import { pct, r1, r2 } from './stats.js';
import { SCALE_OUT_SETUPS, SCALE_OUT_VAULTS, usageWindow, type DrainWindow, type ScaleOutFigures, type ScaleOutSetup } from './scale-out.js';
import { startRedisCluster } from '../test/helpers/redis-cluster.js';
import { redisClient } from '../src/platform/redis.js';

const PHASES = [
  'utxo',
  'ingest',
  'ingest-ethereum',
  'ingest-bitcoin',
  'ingest-stellar',
  'ingest-solana',
  'address',
  'status',
  'create',
  'api-memory',
  'pipeline',
  'pipeline-ethereum',
  'pipeline-bitcoin',
  'pipeline-stellar',
  'pipeline-solana',
  'idle',
  'memory',
  'deposits',
  'scale-out',
];
const USAGE = `npm run bench [-- --quick] [-- --only=<phase>,...]
  --quick         a smoke run with smaller counts
  --only=...      only these phases: ${PHASES.join(', ')}
                  (ingest and pipeline measure every family; ingest-<family>, pipeline-<family> one family)
  Environment: REDIS_URL, BENCH_CPU_PROF=1, BENCH_HEAP_SNAPSHOT=1, BENCH_API_PROCESSES, BENCH_WORKER_PROCESSES,
  BENCH_SERVICE_NODE_FLAGS, BENCH_LOG_LEVEL (see docs/performance.md)
`;
if (process.argv.includes('--help')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const quick = process.argv.includes('--quick');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const unknown = only?.filter((p) => !PHASES.includes(p)) ?? [];
if (unknown.length) {
  process.stderr.write(`unknown phase ${unknown.join(', ')}\n${USAGE}`);
  process.exit(2);
}
const want = (phase: string): boolean => !only || only.includes(phase);
const SIZES = quick
  ? {
      callbacks: 1_500,
      warmup: 300,
      connections: 50,
      addressSeconds: 1,
      withdrawals: 100,
      familyWithdrawals: 100,
      idle: 30,
      jobs: 5_000,
      apiRequests: 2_000,
      scaleOut: 400,
    }
  : {
      callbacks: 20_000,
      warmup: 2_000,
      connections: 50,
      addressSeconds: 4,
      withdrawals: 1_000,
      familyWithdrawals: 500,
      idle: 200,
      jobs: 100_000,
      apiRequests: 24_000,
      scaleOut: 1_000,
    };
type FamilyName = 'ethereum' | 'bitcoin' | 'stellar' | 'solana';
/** Whether a family's part of a phase runs: `ingest` or `pipeline` (every family), or `ingest-<family>`, `pipeline-<family>`. */
const wantFamily = (phase: 'ingest' | 'pipeline', family: FamilyName): boolean => want(phase) || (only?.includes(`${phase}-${family}`) ?? false);
const wantDrain = (family: FamilyName): boolean => wantFamily('pipeline', family);
const BATCH = 1_000;
const SECRET = 'bench-callback-secret-0123456789';
const API_KEY = 'bench-api-key-0123456789abcdef0123';
const RECIPIENT = '0x00000000000000000000000000000000000000B0';
const run = randomUUID().slice(0, 8);
const MB = 1024 * 1024;
const log = (m: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${m}\n`);
const t0 = performance.now();

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

// BENCH_API_PROCESSES=2 runs the API as two processes on one port (bench/cluster-api.ts).
const API_PROCESSES = Number(process.env.BENCH_API_PROCESSES ?? 1);
const WORKER_PROCESSES = Number(process.env.BENCH_WORKER_PROCESSES ?? 1);

async function startApi(
  name: string,
  env: Record<string, string>,
  { processes = API_PROCESSES, ...opts }: StartOptions & { processes?: number } = {},
): Promise<{ child: Child; url: string }> {
  // BENCH_CPU_PROF=1 writes V8 CPU profiles of the API (of each API process) and the worker to bench/results/prof/ when they stop.
  const o = { profile: Boolean(process.env.BENCH_CPU_PROF), ...opts };
  const child =
    processes > 1 && !opts.built ? startNode(name, 'bench/cluster-api.ts', [String(processes)], env, o) : startNode(name, 'src/main.ts', [], env, o);
  const url = `http://127.0.0.1:${env.PORT}`;
  await waitFor(`${name} start`, child, () => answers(`${url}/api/v1.0/config`));
  return { child, url };
}

async function startWorker(name: string, env: Record<string, string>, opts: StartOptions = {}): Promise<Child> {
  // Each worker serves its /status and /metrics on a port of its own.
  const child = startNode(
    name,
    'src/worker-main.ts',
    [],
    { ...env, WORKER_PORT: String(await freePort()) },
    { profile: Boolean(process.env.BENCH_CPU_PROF), ...opts, preload: true },
  );
  await waitFor(`${name} start`, child, logSays(child, 'worker started'));
  return child;
}

/**
 * The custody emulator's callbacks as the bench sees them: when each was accepted, and the
 * gate the pipeline's drains hold them at.
 */
interface CallbackTap {
  accepted: Map<string, number>;
  // digest → when its callback's 200 was read, sub-millisecond (compared with bench/preload.ts's send times).
  acceptedAt: Map<string, number>;
  firstCallback: number;
  acceptedCount: number;
  // While `held` is set, signed callbacks wait for it (the drain starts from 1,000 signed
  // withdrawals, not from their creation); once released, at most 64 are in flight.
  held?: { open: Promise<void>; release: () => void; waiting: number };
}

/** What the phases after the first share: Redis, anvil, the custody emulator, the API, the echo server. */
interface Bench {
  stops: (() => Promise<unknown>)[];
  prefix: string;
  redisUrl: string;
  redis: Redis;
  anvil: Awaited<ReturnType<typeof startAnvil>>;
  custody: Awaited<ReturnType<typeof startInMemoryCustodyEmulator>>;
  tap: CallbackTap;
  env: Record<string, string>;
  config: ReturnType<typeof loadConfig>;
  store: OperationStore;
  api: { child: Child; url: string };
  /** The bench's own requests to the API (vaults, withdrawals), over keep-alive connections: the bench process also answers the API's sign requests (bench/create-phase.ts). */
  apiClient: HttpFetch;
  echo: Child;
  echoPort: number;
  /** The service compiled to JavaScript, run by plain node as the image runs it: built once, when a phase needs it. */
  built: () => Promise<string>;
  /** The bare clients' sends, timed as the service's are. */
  bareSends: ReturnType<typeof watchBareSends>;
}

/** The worker processes of the pipeline, idle and memory phases. */
interface Workers {
  worker: Child;
  extraWorkers: Child[];
  workersCpuSeconds: () => number;
  workersStats: () => Promise<ChildStats[]>;
  workersSends: () => Promise<ChildStats['sends']>;
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

    // ---------------------------------------------------------------- a Bitcoin vault of 2,000 coins (own bcoin node)
    if (want('utxo')) figures.utxo = await utxoBench(redisUrl, prefix, { utxos: 2_000, rounds: quick ? 3 : 10 }, log);

    // The other families' nodes start first: the service processes are configured with them.
    const kits: DrainKit[] = [];
    const starters = { bitcoin: bitcoinDrainKit, stellar: stellarDrainKit, solana: solanaDrainKit };
    for (const family of ['bitcoin', 'stellar', 'solana'] as const) {
      if (!wantDrain(family)) continue;
      const kit = await starters[family]();
      stops.push(kit.stop);
      kits.push(kit);
    }
    const b = await startServices(stops, prefix, redisUrl, redis, kits);
    if (wantDrain('ethereum')) kits.unshift({ ...ethereumDrainKit(b.anvil.url, RECIPIENT), nodePid: b.anvil.pid });
    for (const family of ['ethereum', 'bitcoin', 'stellar', 'solana'] as const) {
      if (wantFamily('ingest', family)) figures.ingest = [...(figures.ingest ?? []), await ingestPhase(b, family)];
    }
    if (want('address')) figures.address = await addressPhase(b);
    if (want('status')) figures.statusUnderBatches = await statusPhase(b);
    if (want('create')) figures.create = await creationPhase(b);
    if (want('api-memory')) figures.apiMemory = await apiMemoryPhase(b);
    if (want('deposits')) figures.deposits = await depositsPhase(b);

    // ---------------------------------------------------------------- pipeline
    const w = await startWorkers(b);
    for (const kit of kits) {
      // Each drain ends once the worker is idle, so the backlog drain starts on a quiet worker.
      figures.drains = [...(figures.drains ?? []), await drain(b, w, kit, 'live'), await drain(b, w, kit, 'backlog')];
    }
    if (want('idle')) figures.idle = await idlePhase(b, w);
    if (want('memory')) figures.memory = await memoryPhase(b, w);
    if (want('scale-out')) figures.scaleOut = await scaleOutPhase(b, w);

    report(figures);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    if (redisUrl) await cleanRedis(redisUrl, [prefix]).catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
  }
}

/**
 * Blocks every second, as a chain makes them: automining one block per transaction makes
 * anvil slower with every block (consecutive thousands of transfers took 1.7, 2.7, 4.0 and
 * 5.0 s here), so the drain and its reference, a thousand blocks apart, would not meet the
 * same node. With 1 s blocks the same runs take 0.8–1.2 s each, whatever came before.
 *
 * One API process (src/main.ts) and, from the pipeline phase on, one worker process
 * (src/worker-main.ts), as deployed; the custody emulator runs here.
 */
async function startServices(stops: Bench['stops'], prefix: string, redisUrl: string, redis: Redis, kits: DrainKit[]): Promise<Bench> {
  const anvil = await startAnvil({ blockTime: 1 });
  stops.push(anvil.stop);

  // Picked together: neither is bound until its server starts, below.
  const [port, echoPort] = (await freePorts(2)) as [number, number];
  const tap: CallbackTap = { accepted: new Map(), acceptedAt: new Map(), firstCallback: Infinity, acceptedCount: 0 };
  const hrNow = () => performance.timeOrigin + performance.now();
  let inFlight = 0;
  const slots: (() => void)[] = [];
  // The custody side shares the service's two cores: its callbacks go over keep-alive
  // connections (the client the service's own custody client uses), not `fetch`, which cost
  // the bench process about 0.4 ms more CPU per callback during a live drain.
  const deliver = keepAliveFetch(64);
  const custody = await startInMemoryCustodyEmulator({
    quorum: { approvers: 1, required: 1, approvalDelayMs: 0 },
    callback: {
      secret: SECRET,
      baseUrl: `http://127.0.0.1:${port}`,
      timeoutMs: 600_000,
      fetch: async (input, init) => {
        const gate = tap.held;
        if (gate) {
          gate.waiting++;
          await gate.open;
          if (inFlight >= 64) await new Promise<void>((r) => slots.push(r));
        }
        inFlight++;
        try {
          tap.firstCallback = Math.min(tap.firstCallback, Date.now());
          const body = typeof init?.body === 'string' ? init.body : '';
          // Signed now: a held callback's timestamp is as old as its wait.
          const res = await deliver(input, gate ? { ...init, headers: { 'content-type': 'application/json', ...signCallback(SECRET, body) } } : init);
          const at = hrNow();
          if (res.ok) tap.acceptedCount++;
          if (res.ok && body) {
            for (const d of (JSON.parse(body) as { dataToSign: string[] }).dataToSign) {
              tap.accepted.set(d.toLowerCase(), Date.now());
              tap.acceptedAt.set(d.toLowerCase(), at);
            }
          }
          return res;
        } finally {
          inFlight--;
          slots.shift()?.();
        }
      },
    },
  });
  stops.push(custody.stop);
  const ledgers = {
    ethdev: { rpcUrl: anvil.url, confirmations: 1 },
    // Address derivation needs no node: closed ports.
    btcregtest: { backend: 'esplora', url: 'http://127.0.0.1:9' },
    stellardev: { horizonUrl: 'http://127.0.0.1:9' },
    // Callbacks need no node either.
    solanadev: { rpcUrl: 'http://127.0.0.1:9' },
    // The drained families' ledgers on their nodes.
    ...Object.fromEntries(kits.map((k) => [k.ledgerId, k.options])),
  };
  const env = serviceEnv(redisUrl, prefix, port, ledgers, custody.url);
  const config = loadConfig(env, families, 'bench');
  const store = new OperationStore(redis, `${prefix}:`);
  const echo = startNode('echo', 'bench/echo-server.ts', [String(echoPort)], {});
  stops.push(echo.stop);
  const api = await startApi('api', env);
  stops.push(api.child.stop);
  await waitFor('echo server', echo, () => answers(`http://127.0.0.1:${echoPort}/`));
  log(`redis ${redisUrl}, anvil ${anvil.url}, api ${api.url}, echo :${echoPort}`);

  let builtDir: Promise<string> | undefined;
  const built = () => {
    if (!builtDir) {
      log('building the service to JavaScript (bench/results/dist)');
      builtDir = buildDist();
    }
    return builtDir;
  };
  return {
    stops,
    prefix,
    redisUrl,
    redis,
    anvil,
    custody,
    tap,
    env,
    config,
    store,
    api,
    apiClient: keepAliveFetch(64),
    echo,
    echoPort,
    built,
    bareSends: watchBareSends(),
  };
}

/**
 * Callback ingest of one family's callback shape (bench/fixtures.ts): the receiver against a
 * bare echo server, the same signed bodies to each. Ethereum gets the full count, the other
 * families a quarter (a Bitcoin callback carries ten signatures).
 */
async function ingestPhase(b: Bench, family: FamilyName): Promise<IngestFigures> {
  const { store, api, echo, echoPort, redis, redisUrl, config, prefix } = b;
  const shape = CALLBACK_SHAPES[family];
  const count = family === 'ethereum' ? SIZES.callbacks : Math.round(SIZES.callbacks / 4);
  const warmup = family === 'ethereum' ? SIZES.warmup : Math.round(SIZES.warmup / 4);
  const warmFile = path.join(RESULTS, `callbacks-${family}-warmup.jsonl`);
  const mainFile = path.join(RESULTS, `callbacks-${family}.jsonl`);
  log(`pre-creating ${warmup + count} ${shape.ledgerId} operations with signed callbacks (${shape.payloads} × ${shape.scheme})`);
  await prepareCallbacks(store, shape, warmup, warmFile, `warm-${family}-${run}`);
  await prepareCallbacks(store, shape, count, mainFile, `main-${family}-${run}`);
  const cbUrl = `${api.url}/api/v1.0/sign_complete_callback?ledgerId=${shape.ledgerId}`;
  const echoUrl = `http://127.0.0.1:${echoPort}/echo`;
  const c = SIZES.connections;
  log(`callback ingest (${family}): warm-up, then ${count} requests each to the echo server and the receiver, ${c} connections`);
  const common = { method: 'POST' as const, connections: c, hmacSecret: SECRET };
  const [, warm] = (await runLoad([
    { ...common, url: echoUrl, amount: warmup, bodiesFile: warmFile },
    { ...common, url: cbUrl, amount: warmup, bodiesFile: warmFile },
  ])) as [LoadResult, LoadResult];
  if (warm.non2xx) throw new Error(`${warm.non2xx} warm-up callbacks were refused; see ${api.child.log}`);
  // Each measured pass alone, so the CPU its server used is known (a figure that other load on the machine does not inflate).
  const measured = async (server: Child, url: string) => {
    const before = cpuSeconds(server);
    const [result] = (await runLoad([{ ...common, url, amount: count, bodiesFile: mainFile }])) as [LoadResult];
    return { result, cpuMsPerRequest: ((cpuSeconds(server) - before) * 1000) / result.requests };
  };
  const { result: echoResult, cpuMsPerRequest: echoCpuMs } = await measured(echo, echoUrl);
  const redisCpu0 = await redisCpuSeconds(redis);
  const { result: service, cpuMsPerRequest: apiCpuMs } = await measured(api.child, cbUrl);
  // Everything the Redis server did meanwhile: only the callbacks' share on a Redis of the bench's own.
  const redisCpuMs = (((await redisCpuSeconds(redis)) - redisCpu0) * 1000) / service.requests;
  const queues = createQueues(redis, config);
  const counts = await queues.broadcast.getJobCounts('waiting', 'paused', 'prioritized');
  // The fake operations must not reach the worker or the reconciler of the next phases.
  await queues.broadcast.obliterate({ force: true });
  await redis.del(operationKeys(servicePrefix(prefix)).open);
  await queues.close();
  const enqueued = Object.values(counts).reduce((x, y) => x + y, 0);
  // What no receiver can leave out: the signatures checked before a callback is accepted.
  const checksCpuMs = signatureChecksCpuMs(mainFile, shape.scheme);
  const figures: IngestFigures = {
    family: shape.family,
    shape: `${shape.payloads} ${shape.scheme} signature${shape.payloads > 1 ? 's' : ''} over ${shape.dataBytes} bytes`,
    service,
    echo: echoResult,
    ratio: service.rps / echoResult.rps,
    enqueued,
    apiCpuMsPerCallback: Math.round(apiCpuMs * 1000) / 1000,
    echoCpuMsPerRequest: Math.round(echoCpuMs * 1000) / 1000,
    redisCpuMsPerCallback: Math.round(redisCpuMs * 1000) / 1000,
    checksCpuMsPerCallback: Math.round(checksCpuMs * 1000) / 1000,
    ownRedis: redisUrl !== (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
  };
  log(
    `callbacks (${family}) ${r1(service.rps)} req/s (p99 ${service.p99} ms, API CPU ${apiCpuMs.toFixed(3)} ms each) vs echo ${r1(echoResult.rps)} req/s (CPU ${echoCpuMs.toFixed(3)} ms each); ${enqueued} jobs enqueued`,
  );
  return figures;
}

/** address-from-publickey: 1,000 keys per request over one connection, vs the ledger's library looping over the same keys here. */
async function addressPhase({ api }: Bench): Promise<NonNullable<Figures['address']>> {
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
    specs.push(
      { url, method: 'POST' as const, connections: 1, amount: 3, bodiesFile: file },
      { url, method: 'POST' as const, connections: 1, duration: SIZES.addressSeconds, bodiesFile: file },
    );
  }
  log(`address-from-publickey: ${SIZES.addressSeconds} s of ${BATCH}-key batches per ledger`);
  const results = await runLoad(specs);
  const figures: NonNullable<Figures['address']> = {};
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
    figures[ledgerId] = { httpKeysPerSec: Math.round(httpKeys), rawKeysPerSec: Math.round(raw), ratio: httpKeys / raw, batchP50Ms: http.p50 };
    log(`address ${ledgerId}: ${Math.round(httpKeys)} keys/s over HTTP vs ${Math.round(raw)} raw`);
  }
  return figures;
}

/** /status under four 10,000-key batches. */
async function statusPhase({ api, env }: Bench): Promise<NonNullable<Figures['statusUnderBatches']>> {
  const big = randomKeys(quick ? 2_000 : 10_000).secp.map((p) => toCustodyKeyId({ scheme: 'secp256k1', bytes: ecc.pointCompress(p, true) }));
  // The API as configured (derivation threads), then a second API process deriving on its main thread in time slices.
  const withThreads = await statusUnderBatches(api.url, 'btcregtest', big);
  const sliced = await startApi('api-slices', { ...env, PORT: String(await freePort()), DERIVE_THREADS: '0' });
  const inSlices = await statusUnderBatches(sliced.url, 'btcregtest', big).finally(() => sliced.child.stop());
  const figures = { threads: withThreads, slices: inSlices };
  for (const [name, f] of Object.entries(figures)) {
    log(
      `/status under ${f.batches} batches of ${f.keysPerBatch} keys (${name}): p50 ${f.loaded.msP50} / p99 ${f.loaded.msP99} / max ${f.loaded.msMax} ms over ${f.loaded.count} requests (${f.batchesMs} ms); idle p50 ${f.idle.msP50} / p99 ${f.idle.msP99}`,
    );
  }
  return figures;
}

/** Withdrawal creation (bench/create-phase.ts), on an API process of its own with the preload that counts its requests to the node. */
async function creationPhase({ env, stops, custody, anvil, store, redis, prefix }: Bench): Promise<CreateFigures> {
  const createPort = await freePort();
  const createApi = await startApi('api-create', { ...env, PORT: String(createPort), PUBLIC_URL: `http://127.0.0.1:${createPort}` }, { preload: true });
  stops.push(createApi.child.stop);
  const figures = await createPhase({
    api: createApi,
    apiKey: API_KEY,
    custody,
    anvilUrl: anvil.url,
    store,
    redis,
    prefix,
    withdrawals: SIZES.withdrawals,
    warmup: quick ? 50 : 200,
    inFlight: 64,
    log,
  });
  await createApi.child.stop();
  log(`create: ${JSON.stringify(figures)}`);
  return figures;
}

/**
 * API memory: a fresh API process each (through tsx as `npm start` runs it, then built), with
 * the open routes' default access and rate limit: the figure is the service as deployed.
 */
async function apiMemoryPhase({ env, stops, custody, store, built }: Bench): Promise<NonNullable<Figures['apiMemory']>> {
  const { OPEN_ROUTES_ANONYMOUS: _a, OPEN_ROUTES_RATE_PER_MINUTE: _r, ...deployed } = env;
  const figures: NonNullable<Figures['apiMemory']> = {};
  for (const how of ['tsx', 'built'] as const) {
    const memPort = await freePort();
    const name = how === 'tsx' ? 'api-memory' : 'api-memory-built';
    const memApi = await startApi(
      name,
      { ...deployed, PORT: String(memPort), PUBLIC_URL: `http://127.0.0.1:${memPort}` },
      { preload: true, ...(how === 'built' ? { built: await built() } : {}) },
    );
    stops.push(memApi.child.stop);
    log(`api-memory (${how}): ${SIZES.apiRequests} mixed requests to a fresh API process`);
    const m = await apiMemory(
      { api: memApi, custody, store, apiKey: API_KEY, callbackSecret: SECRET, run, snapshot: (n) => heapSnapshot(memApi.child, `${name}-${n}`) },
      SIZES.apiRequests,
    );
    await memApi.child.stop();
    figures[how] = m;
    log(`api-memory (${how}): ${JSON.stringify(m)}`);
  }
  return figures;
}

/** Deposits (bench/deposits.ts): the scanner on an anvil of its own, and built worker processes scanning as production does. */
async function depositsPhase({ redis, redisUrl, prefix, env, stops, built }: Bench): Promise<DepositFigures> {
  const sizes: DepositSizes = quick
    ? { blocks: 60, watched: 10_000, payments: 15, pollsMs: [2000, 200], watchedMemory: 20_000 }
    : { blocks: 300, watched: 10_000, payments: 40, pollsMs: [2000, 200], watchedMemory: 100_000 };
  return depositsBench(
    {
      redis,
      redisUrl,
      keyPrefix: prefix,
      log,
      startWorker: async (name, more) => {
        const w = await startWorker(name, { ...env, ...more }, { built: await built() });
        stops.push(w.stop);
        return w;
      },
    },
    sizes,
  );
}

/**
 * Scale-out (bench/scale-out.ts): the Ethereum live drain on (a) one API and one worker process
 * on the bench's Redis, then (b) two API and two worker processes on a three-master Redis
 * Cluster started here, each set-up with a hash-tagged prefix of its own. The API of each
 * set-up listens on the port the custody emulator calls back, so the pipeline's API and workers
 * stop first.
 */
async function scaleOutPhase(b: Bench, w: Workers): Promise<ScaleOutFigures> {
  for (const x of [w.worker, ...w.extraWorkers]) await x.stop();
  await b.api.child.stop();
  const runs: ScaleOutFigures['runs'] = [];
  for (const vaults of SCALE_OUT_VAULTS) for (const setup of SCALE_OUT_SETUPS) runs.push(await scaleOutRun(b, setup, vaults));
  return { runs };
}

async function scaleOutRun(b: Bench, setup: ScaleOutSetup, vaults: number): Promise<ScaleOutFigures['runs'][number]> {
  const cluster = setup.redisMasters > 1 ? await startRedisCluster(setup.redisMasters) : undefined;
  if (cluster) b.stops.push(cluster.stop);
  const redisUrl = cluster?.url ?? b.redisUrl;
  const nodeUrls = cluster ? cluster.ports.map((p) => `redis://127.0.0.1:${p}`) : [b.redisUrl];
  // Redis Cluster needs every key of a script in one slot: a hash-tagged prefix, on both set-ups alike.
  const prefix = `{${b.prefix}-so-${setup.name}${vaults}}`;
  const env = { ...b.env, REDIS_URL: redisUrl, REDIS_PREFIX: prefix };
  const redis = redisClient(redisUrl, { maxRetriesPerRequest: null });
  const config = loadConfig(env, families, 'bench');
  log(
    `scale-out (${setup.name}, ${vaults} vaults): ${setup.apiProcesses} API + ${setup.workerProcesses} worker processes on ${cluster ? `a ${setup.redisMasters}-master Redis Cluster` : redisUrl}`,
  );
  const api = await startApi(`api-so-${setup.name}${vaults}`, env, { processes: setup.apiProcesses });
  const sb: Bench = { ...b, prefix, redisUrl, redis, config, env, api, store: new OperationStore(redis, `${prefix}:`) };
  try {
    const sw = await startWorkers(sb, setup.workerProcesses, `worker-so-${setup.name}${vaults}`);
    const window = usageWindow(api.child, setup.apiProcesses, [sw.worker, ...sw.extraWorkers], nodeUrls);
    const d = await drain(sb, sw, ethereumDrainKit(b.anvil.url, RECIPIENT, vaults), 'live', { window, withdrawals: SIZES.scaleOut });
    for (const x of [sw.worker, ...sw.extraWorkers]) await x.stop();
    const run = {
      setup,
      vaults,
      ownRedis: Boolean(cluster) || redisUrl !== (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
      withdrawals: d.created,
      drainSeconds: d.drainSeconds,
      broadcastsPerSecond: d.broadcastsPerSecond,
      callbackToBroadcastMsP50: d.callbackToBroadcastMsP50,
      callbackToBroadcastMsP99: d.callbackToBroadcastMsP99,
      callbacksAcceptedSeconds: d.callbacksAcceptedSeconds,
      barePerSecond: d.bare.perSecond,
      orderOk: d.order.ok,
      sends: d.nodeSends,
      distinct: d.distinctSent,
      failed: d.failed,
      usage: window.usage(),
    };
    log(`scale-out (${setup.name}, ${vaults} vaults), drained: ${JSON.stringify(run)}`);
    return run;
  } finally {
    await api.child.stop();
    redis.disconnect();
    if (cluster) await cluster.stop();
    else await cleanRedis(redisUrl, [prefix]);
  }
}

/** BENCH_WORKER_PROCESSES=2 adds worker processes for the drains and the idle phase (the memory phase uses the first alone). */
async function startWorkers({ env, stops }: Bench, count = WORKER_PROCESSES, name = 'worker'): Promise<Workers> {
  const worker = await startWorker(name, env);
  stops.push(worker.stop);
  const extraWorkers: Child[] = [];
  for (let i = 2; i <= count; i++) {
    const w = await startWorker(`${name}-${i}`, env);
    stops.push(w.stop);
    extraWorkers.push(w);
  }
  const workersCpuSeconds = () => [worker, ...extraWorkers].reduce((sum, w) => sum + cpuSeconds(w), 0);
  const workersStats = () => Promise.all([worker, ...extraWorkers].map((w) => w.stats()));
  const workersSends = async () => (await workersStats()).flatMap((s) => s.sends);
  return { worker, extraWorkers, workersCpuSeconds, workersStats, workersSends };
}

async function call({ api, apiClient }: Bench, method: string, p: string, body?: unknown) {
  const res = await apiClient(api.url + p, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/**
 * Creates a withdrawal under an Idempotency-Key of its own, asking again while the answer is a
 * 503 or a lost connection (a loaded machine drops some): the key makes a repeat the same
 * withdrawal, never a second one. Returns the last answer and how many times it asked again.
 */
async function createWithdrawal(
  { api, apiClient }: Bench,
  vaultId: string,
  body: unknown,
  key: string,
): Promise<{ status: number; body: Record<string, any>; retries: number }> {
  for (let retries = 0; ; retries++) {
    const last = retries === 19;
    try {
      const res = await apiClient(`${api.url}/api/v1.0/vaults/${vaultId}/withdrawals`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
      const answer = { status: res.status, body: (await res.json()) as Record<string, any>, retries };
      if (answer.status !== 503 || last) return answer;
    } catch (e) {
      if (last) throw e;
    }
  }
}

/** A custody vault registered here and funded with 100 ETH. */
async function fundedVault(b: Bench) {
  const vault = b.custody.control.createVault('ECDSA', { ledger: 'ethdev' });
  const reg = await call(b, 'POST', '/api/v1.0/admin/vaults', { vaultId: vault.vaultId, ledgerId: 'ethdev', publicKey: vault.publicKey });
  if (reg.status !== 201) throw new Error(`vault registration: ${JSON.stringify(reg.body)}`);
  const funder = new DevChainFunder(b.anvil.url);
  await funder.sendEth(reg.body.address as string, 100n * 10n ** 18n);
  funder.destroy();
  return { vaultId: vault.vaultId, address: reg.body.address as string };
}

/** Waits until the worker has nothing waiting, running or delayed (look-agains, confirmation checks). */
async function workerIdle({ redis, config }: Bench, { worker }: Workers): Promise<void> {
  const queues = createQueues(redis, config);
  await waitFor(
    'the worker to be idle',
    worker,
    async () => {
      for (const q of [queues.broadcast, queues.confirm]) {
        const c = await q.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        if (Object.values(c).some((v) => v > 0)) return false;
      }
      return true;
    },
    180_000,
  );
  await queues.close();
}

/** The service as a drain kit uses it: vault registration, withdrawals, waiting for confirmations. */
function serviceHandle(b: Bench): ServiceHandle {
  return {
    registerVault: async (ledgerId, scheme) => {
      const vault = b.custody.control.createVault(scheme, { ledger: ledgerId });
      const reg = await call(b, 'POST', '/api/v1.0/admin/vaults', { vaultId: vault.vaultId, ledgerId, publicKey: vault.publicKey });
      if (reg.status !== 201) throw new Error(`vault registration: ${JSON.stringify(reg.body)}`);
      return { vaultId: vault.vaultId, address: reg.body.address as string };
    },
    withdraw: async (vaultId, body) => {
      const r = await createWithdrawal(b, vaultId, body, randomUUID());
      if (r.status !== 200) throw new Error(`withdrawal from ${vaultId}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      return r.body.operationID as string;
    },
    confirmed: async (operationIDs) => {
      await waitFor(
        `${operationIDs.length} withdrawals confirmed`,
        b.api.child,
        async () => {
          const ops = await readOperations(b, operationIDs);
          const failed = ops.find((o) => o?.status === 'FAILED');
          if (failed) throw new Error(`withdrawal ${failed.operationID} FAILED: ${JSON.stringify(failed.history.at(-1))}`);
          return ops.every((o) => o?.status === 'CONFIRMED');
        },
        180_000,
      );
    },
    log,
  };
}

/** The withdrawals' records, in the order of their ids (undefined where one is unknown). */
async function readOperations({ store }: Bench, operationIDs: string[]): Promise<(Operation | undefined)[]> {
  const out: (Operation | undefined)[] = [];
  for (let i = 0; i < operationIDs.length; i += 200)
    out.push(...(await Promise.all(operationIDs.slice(i, i + 200).map(async (id) => (await store.resolve(id)) ?? undefined))));
  return out;
}

/**
 * Creates one withdrawal per vault index (64 requests in flight), and holds their signed
 * callbacks until every one is signed; returns the gate that releases them.
 */
async function createHeld(b: Bench, kit: DrainKit, vaults: string[]) {
  const n = vaults.length;
  log(`pipeline (${kit.family}): ${n} withdrawals created (64 requests in flight), their signed callbacks held until all are created`);
  let release = () => undefined as void;
  const gate = { open: new Promise<void>((r) => (release = r)), release: () => release(), waiting: 0 };
  b.tap.held = gate;
  // Held callbacks must not outlive a failed run (the emulator waits for them when it stops).
  b.stops.push(async () => release());
  const createStart = Date.now();
  let nextIndex = 0;
  const operationIDs: string[] = [];
  const refusals: string[] = [];
  let retried = 0;
  const batch = randomUUID().slice(0, 8);
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (nextIndex < n) {
        const i = nextIndex++;
        // A 503 (Bitcoin: coins claimed by concurrent withdrawals of the same vault) is asked
        // again, as a client should; the retries are counted.
        const r = await createWithdrawal(b, vaults[i] as string, { ...kit.withdrawal(i), description: `bench ${i}` }, `${batch}-${i}`);
        retried += r.retries;
        if (r.status === 200) operationIDs.push(r.body.operationID as string);
        else refusals.push(`${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
    }),
  );
  const createSeconds = (Date.now() - createStart) / 1000;
  if (refusals.length) log(`${refusals.length} withdrawals refused, e.g. ${refusals[0]}`);
  if (retried) log(`${retried} creations answered 503 or lost their connection and were asked again`);
  await waitFor('every withdrawal signed', undefined, () => gate.waiting >= operationIDs.length, 120_000);
  return { operationIDs, createSeconds, gate, retried };
}

/**
 * One drain of signed withdrawals of one family, from vaults of their own. `live`: the held
 * callbacks are released and the receiver and the worker run at once (first callback → last
 * broadcast). `backlog`: broadcasts are paused while the receiver accepts every callback, then
 * resumed: the worker alone takes the service's signed withdrawals to the node (resume → last
 * broadcast). The reference, just before: the kit's bare client sending as many pre-signed
 * transactions to the same node.
 */
async function drain(
  b: Bench,
  w: Workers,
  kit: DrainKit,
  mode: 'live' | 'backlog',
  { window, withdrawals }: { window?: DrainWindow; withdrawals?: number } = {},
): Promise<DrainFigures> {
  const { tap, redis, config, api } = b;
  const { worker, extraWorkers, workersCpuSeconds, workersStats } = w;
  const n = withdrawals ?? (kit.family === 'Ethereum' ? SIZES.withdrawals : SIZES.familyWithdrawals);
  const vaults = await kit.vaults(serviceHandle(b), n);
  const { operationIDs, createSeconds, gate, retried } = await createHeld(b, kit, vaults);

  log(`drain reference (${kit.family}): ${n} pre-signed transactions sent one at a time by a bare client`);
  b.bareSends.start();
  const bareSent = await kit.bare(n);
  const bareGaps = gapsBetween(b.bareSends.stop());
  const bare = { ...bareSent, ...(bareGaps ? { gaps: bareGaps } : {}) };
  log(`bare client: ${n} in ${r2(bare.seconds)} s (${r1(bare.perSecond)}/s, RPC p50 ${r1(bare.rpcMsP50)} ms) from height ${bare.height}`);

  log(`drain (${kit.family}, ${mode}): ${operationIDs.length} signed callbacks released`);
  const queues = createQueues(redis, config);
  if (mode === 'backlog') await queues.broadcast.pause();
  tap.firstCallback = Infinity;
  tap.acceptedCount = 0;
  const allCounters = () => Promise.all([worker, ...extraWorkers].map((w) => w.counters()));
  const sentOf = (counters: { sent: number }[]) => counters.reduce((a, c) => a + c.sent, 0);
  const workersSent = async () => sentOf(await allCounters());
  // One ask of every worker gives both: the sends so far and the first worker's GC count.
  const countersBefore = await allCounters();
  const sentBefore = sentOf(countersBefore);
  const gcBefore = (countersBefore[0] as ChildCounters).gc;
  let workerCpu0 = workersCpuSeconds();
  const apiCpu0 = cpuSeconds(api.child);
  // The bench process holds the custody side, and the node of every family but Ethereum's.
  const nodePid = kit.nodePid;
  const meter = coreMeter(
    {
      worker: workersCpuSeconds,
      api: () => cpuSeconds(api.child),
      bench: () => pidCpuSeconds(process.pid),
      ...(nodePid === undefined ? {} : { node: () => pidCpuSeconds(nodePid) }),
      redis: () => redisCpuSeconds(redis),
    },
    cpus().length,
  );
  await window?.start();
  if (mode === 'live') await meter.start();
  tap.held = undefined;
  gate.release();
  let resumedAt = NaN;
  if (mode === 'backlog') {
    await waitFor('every callback accepted', api.child, () => tap.acceptedCount >= operationIDs.length, 120_000);
    resumedAt = Date.now();
    workerCpu0 = workersCpuSeconds();
    await meter.start();
    await queues.broadcast.resume();
  }
  let ops: Operation[] = [];
  let lastRead = Date.now();
  const everyOneOut = async () => {
    lastRead = Date.now();
    ops = (await readOperations(b, operationIDs)).filter((o): o is Operation => o !== undefined);
    return ops.length === operationIDs.length && ops.every((o) => ['BROADCAST', 'CONFIRMED', 'FAILED'].includes(o.status));
  };
  // While the drain runs, only the workers' send counters are asked (a message each):
  // reading every withdrawal record ten times a second (megabytes from Redis, parsed here)
  // took CPU from the two cores the worker shares, and so did reading them every 2 s (a
  // fifth of a second of the bench's CPU in the middle of a 3 s drain). The records are read
  // once the sends are all out, or once no send came for 2 s, should some withdrawal never
  // be sent (FAILED).
  let sentSoFar = sentBefore;
  await waitFor(
    'every withdrawal sent',
    worker,
    async () => {
      const sent = await workersSent();
      if (sent >= sentBefore + operationIDs.length) return true;
      if (sent > sentSoFar) {
        sentSoFar = sent;
        lastRead = Date.now();
        return false;
      }
      return Date.now() - lastRead > 2000 && everyOneOut();
    },
    300_000,
  );
  await waitFor('every withdrawal broadcast', worker, everyOneOut, 300_000);
  await window?.end();
  const broadcastAt = (o: Operation) => Date.parse(o.history.find((h) => h.status === 'BROADCAST')?.at ?? '');
  const sent = ops.filter((o) => Number.isFinite(broadcastAt(o)));
  const lastBroadcast = Math.max(...sent.map(broadcastAt));
  // Up to the last look at the store (a few polls past the last broadcast); confirmation checks included.
  const workerCpuMs = ((workersCpuSeconds() - workerCpu0) * 1000) / operationIDs.length;
  const apiCpuMs = ((cpuSeconds(api.child) - apiCpu0) * 1000) / operationIDs.length;
  const cores = await meter.stop(operationIDs.length, 'worker');
  const all = await workersStats();
  const stats = all[0] as ChildStats;
  // Every send of the workers since the drain began: the drain's vaults are the only ones sending.
  const drainSends = all.flatMap((s, k) => s.sends.slice(countersBefore[k]?.sent ?? 0));
  const callbackToBroadcast = sent.map((o) => broadcastAt(o) - (tap.accepted.get(o.unsigned.payloads[0]?.digest ?? '') ?? NaN)).filter(Number.isFinite);
  const order = await kit.check(sent);
  const drainSeconds = (lastBroadcast - (mode === 'backlog' ? resumedAt : tap.firstCallback)) / 1000;
  const lastAccepted = Math.max(...sent.map((o) => tap.accepted.get(o.unsigned.payloads[0]?.digest ?? '') ?? -Infinity));
  const result: DrainFigures = {
    family: kit.family,
    mode,
    withdrawals: n,
    created: operationIDs.length,
    createRetries: retried,
    createSeconds: r2(createSeconds),
    createVaults: new Set(vaults).size,
    drainSeconds: r2(drainSeconds),
    broadcastsPerSecond: r1(sent.length / drainSeconds),
    bare: { ...bare, seconds: r2(bare.seconds), perSecond: r1(bare.perSecond), rpcMsP50: r1(bare.rpcMsP50) },
    drainRatio: r2(sent.length / drainSeconds / bare.perSecond),
    rpcMsP50: r1(
      pct(
        drainSends.map((s) => s.ms),
        50,
      ),
    ),
    ...sendGapsOf(drainSends),
    nodeSends: drainSends.length,
    distinctSent: new Set(drainSends.map((s) => s.txid.toLowerCase())).size,
    // The sends of one batch share the moment its answer was read.
    sendRequests: new Set(drainSends.map((s) => s.at)).size,
    workerGcs: { minor: stats.gc.minor - gcBefore.minor, major: stats.gc.major - gcBefore.major },
    // Runs of the withdrawals' broadcast jobs so far: one each, plus a run for every look again.
    broadcastRuns: (await Promise.all(ops.map((o) => queues.broadcast.getJob(broadcastJobId(o.id))))).reduce((a, j) => a + (j?.attemptsStarted ?? 0), 0),
    callbackToBroadcastMsP50: r1(pct(callbackToBroadcast, 50)),
    callbackToBroadcastMsP99: r1(pct(callbackToBroadcast, 99)),
    callbacksAcceptedSeconds: r2((lastAccepted - tap.firstCallback) / 1000),
    order,
    failed: ops.filter((o) => o.status === 'FAILED').length,
    workerCpuMsPerWithdrawal: r2(workerCpuMs),
    apiCpuMsPerWithdrawal: r2(apiCpuMs),
    cores,
    workerRssMB: r1(stats.memory.rss / MB),
  };
  // The rest of the withdrawals' life in the worker: confirmations, and whatever looks again.
  await workerIdle(b, w);
  result.workerCpuMsPerWithdrawalUntilIdle = r2(((workersCpuSeconds() - workerCpu0) * 1000) / operationIDs.length);
  await queues.close();
  log(`drain (${kit.family}, ${mode}): ${JSON.stringify(result)}`);
  return result;
}

/**
 * The service's answer → next send gaps, where it sent one request after another (the sends of
 * one JSON-RPC batch share their request: the moment its answer was read, and its duration).
 */
function sendGapsOf(sends: { ms: number; at: number }[]): { sendGaps?: SendGaps } {
  const requests = new Map(sends.map((s) => [s.at, { start: s.at - s.ms, end: s.at }]));
  const gaps = gapsBetween([...requests.values()]);
  return gaps ? { sendGaps: gaps } : {};
}

/** Idle latency: withdrawals one at a time on a worker with nothing else to do. */
async function idlePhase(b: Bench, w: Workers): Promise<IdleLatency> {
  // Idle means idle: the drain's look-agains and confirmation checks finish first.
  await workerIdle(b, w);
  const { vaultId } = await fundedVault(b);
  const warmup = 5;
  log(`idle latency: ${SIZES.idle} withdrawals one at a time (after ${warmup} not counted)`);
  const figures = await idleLatency({
    count: SIZES.idle,
    warmup,
    store: b.store,
    accepted: b.tap.acceptedAt,
    sends: w.workersSends,
    withdraw: async (i) => {
      const r = await call(b, 'POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { recipientAddress: RECIPIENT, amount: '0.001', description: `idle ${i}` });
      if (r.status !== 200) throw new Error(`idle withdrawal ${i}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      return r.body.operationID as string;
    },
  });
  log(`idle: ${JSON.stringify(figures)}`);
  return figures;
}

/**
 * Worker memory: the same worker process (run through tsx, as `npm run worker` does) goes on
 * with many more jobs; then a worker compiled to JavaScript and run by plain node, as the image runs it.
 */
async function memoryPhase({ redis, store, config, env, stops, built }: Bench, { worker, extraWorkers }: Workers): Promise<NonNullable<Figures['memory']>> {
  const memDeps = { redis, store, config, withdrawalId: `mem-${run}` };
  log(`memory: ${SIZES.jobs} jobs through the worker (tsx; RETAIN_COMPLETED_JOBS ${config.retainCompletedJobs})`);
  for (const w of extraWorkers) await w.stop();
  const tsx = await workerMemory({ ...memDeps, worker, snapshot: (n) => heapSnapshot(worker, `worker-${n}`) }, SIZES.jobs);
  log(`memory (tsx): ${JSON.stringify(tsx)}`);
  await worker.stop();
  const builtWorker = await startWorker('worker-built', env, { built: await built() });
  stops.push(builtWorker.stop);
  const rssAtStartMB = r1((await builtWorker.stats()).memory.rss / MB);
  log(`memory: ${SIZES.jobs} jobs through the built worker (node dist/src/worker-main.js, started at ${rssAtStartMB} MB)`);
  const node = await workerMemory({ ...memDeps, worker: builtWorker, snapshot: (n) => heapSnapshot(builtWorker, `worker-built-${n}`) }, SIZES.jobs);
  await builtWorker.stop();
  log(`memory (built): ${JSON.stringify(node)}`);
  return { tsx, built: node };
}

/** CPU seconds the Redis server has used (INFO cpu), all clients together. */
async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
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
    for (const prefix of prefixes) await deleteKeysUnder(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

function report(f: Figures): void {
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGB: r1(totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverage: loadavg().map(r2),
  };
  const seconds = r1((performance.now() - t0) / 1000);
  const table = rows(f, { connections: SIZES.connections, apiProcesses: API_PROCESSES, addressBatch: BATCH });
  process.stdout.write(
    [
      '',
      `byow bench (${quick ? 'quick' : 'full'}) — ${machine.cpus} cpus (${machine.cpuModel}), node ${machine.node}, load average ${machine.loadAverage.join(' ')}, ${seconds} s`,
      ...formatTable(table),
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(RESULTS, 'latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds, machine, sizes: SIZES, table, figures: f }, null, 2)}\n`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
