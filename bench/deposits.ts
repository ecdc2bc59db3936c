/**
 * Bench phase `deposits`: the deposit scanner of `src/deposits/` on a real anvil of its own
 * (automining off: the bench mines each block itself, so it knows when each was made), with
 * vaults registered through the vault registry as the service stores them.
 *
 * - **Scan rate**: `blocks` blocks, each holding one ETH payment to a watched address, 10,000
 *   vaults watched; the scanner (`LedgerScanner.pass`: fetch, receipts, filter, the Lua step
 *   with its events) against the bare `depositSource.block` of the same blocks, the two by
 *   turns 30 blocks at a time (a drift of the node or the machine during the phase falls on
 *   both); the scanner's time per block is split into the fetch, the step and the rest.
 * - **Detection latency**: a worker process compiled to JavaScript (as the image runs it)
 *   scans as production does (its job scheduler every `DEPOSIT_POLL_MS`); payments a random
 *   0-0.5 s apart, each from its block mined (the node's answer to `evm_mine` read here) to the
 *   deposit's `detectedAt` (written with `deposit.detected` in the same step). Reference: the
 *   poll interval, which bounds it (plus one block's scan).
 * - **Memory**: that worker's RSS once settled, scanning while it watches the 10,000 vaults;
 *   and the watched map of `watchedMemory` vaults in a process of its own
 *   (bench/watched-memory.ts: heap with the map alive minus heap once dropped).
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Wallet } from 'ethers';
import type { Redis } from 'ioredis';
import pino from 'pino';
import * as ecc from 'tiny-secp256k1';
import { ethereumFamily } from '../adaptors/ethereum/index.js';
import { ANVIL_DEV_KEY } from '../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil } from '../adaptors/ethereum/local-node/local-anvil.js';
import { depositId } from '../src/deposits/deposit.js';
import { DepositStore } from '../src/deposits/deposit-store.js';
import { LedgerScanner } from '../src/deposits/scan-ledger.js';
import type { LedgerAdaptor } from '../src/ledger/adaptor.js';
import type { ChainBlock, DepositSource } from '../src/ledger/deposit-source.js';
import { Reservations } from '../src/ledger/reservations.js';
import { servicePrefix } from '../src/platform/redis-keys.js';
import { singleAddress } from '../src/vaults/vault-addresses.js';
import type { VaultRecord } from '../src/vaults/vault-schema.js';
import { VaultStore } from '../src/vaults/vault-store.js';
import { rpc } from './bare-sender.js';
import { runJsonProcess, waitFor, type Child } from './procs.js';
import { settledMemory, type MemoryFigure } from './settle.js';
import { pct, r1, r2 } from './stats.js';
import { verdict, type Row } from './table.js';
import type { WatchedMemory } from './watched-memory.js';
import { keepAliveFetch } from '../src/platform/http-client.js';

export interface DepositSizes {
  /** Blocks of the scan-rate pass, each with one deposit. */
  blocks: number;
  /** Vaults watched by the scan-rate pass and the worker. */
  watched: number;
  /** Payments per poll interval in the latency runs. */
  payments: number;
  /** DEPOSIT_POLL_MS of each latency run; the first one's worker gives the memory figure. */
  pollsMs: number[];
  /** Vaults of the watched-map memory figure. */
  watchedMemory: number;
}

export interface DepositLatency {
  pollMs: number;
  payments: number;
  msP50: number;
  msP99: number;
  msMax: number;
}

export interface DepositFigures {
  watched: number;
  scan: {
    blocks: number;
    /** Payments of the pass found as deposits. */
    detected: number;
    scannerPerSecond: number;
    /** The bare fetch of the same blocks, by turns with the scanner. */
    barePerSecond: number;
    ratio: number;
    /** The lowest and the highest ratio of one chunk of blocks. */
    chunkRatios: [number, number];
    /** The scanner's watched set of `watched` vaults built from the registry (its first refresh). */
    watchedBuildSeconds: number;
    /** The scanner's time per block: in the source's fetch, in the store's step (the Lua script), the rest; and the bare fetch's. */
    perBlockMs: { fetch: number; step: number; other: number; bare: number };
  };
  latency: DepositLatency[];
  /** `noScan`: the same built worker with no ledger to scan, settled the same way. */
  worker: MemoryFigure & { pollMs: number; rssAtStartMB: number; noScan: MemoryFigure };
  watchedMap: WatchedMemory;
}

export interface DepositDeps {
  redis: Redis;
  redisUrl: string;
  /** The phase's own key prefixes begin with it (without the colon): the bench deletes them after the run. */
  keyPrefix: string;
  /** A worker process compiled to JavaScript, with the service's environment and this on top; stopped by the caller's stops too. */
  startWorker(name: string, env: Record<string, string>): Promise<Child>;
  log(m: string): void;
}

const LEDGER = 'ethdev';
/** Blocks the scanner and the bare fetch take by turns, so the node's and the machine's drift during the phase falls on both. */
const SCAN_CHUNK = 30;

/** Compressed secp256k1 public keys of random private keys: libsecp256k1 where its binding loads (5× faster: 100,000 keys are seconds), else tiny-secp256k1. */
function publicKeys(n: number): string[] {
  let create: (priv: Uint8Array) => Uint8Array;
  try {
    const native = createRequire(import.meta.url)('secp256k1/bindings') as { publicKeyCreate(priv: Uint8Array, compressed: boolean): Uint8Array };
    create = (priv) => native.publicKeyCreate(priv, true);
  } catch {
    create = (priv) => ecc.pointFromScalar(priv, true) as Uint8Array;
  }
  const out: string[] = [];
  while (out.length < n) {
    const priv = Uint8Array.from(randomBytes(32));
    if (ecc.isPrivate(priv)) out.push(Buffer.from(create(priv)).toString('hex'));
  }
  return out;
}

/** `n` single-key `ethdev` vaults registered through the vault registry (record and index, as the service's registration writes them). */
async function registerVaults(vaults: VaultStore, n: number, idPrefix: string): Promise<VaultRecord[]> {
  const createdAt = new Date().toISOString();
  const records: VaultRecord[] = publicKeys(n).map((publicKey, i) => ({ vaultId: `${idPrefix}-${i}`, ledgerId: LEDGER, kind: 'single', publicKey, createdAt }));
  for (let i = 0; i < records.length; i += 500) await Promise.all(records.slice(i, i + 500).map((r) => vaults.create(r)));
  return records;
}

/** Pays ETH from anvil's first dev account and mines the block itself: when `evm_mine` answers, the block is made. */
function payer(url: string) {
  const wallet = new Wallet(ANVIL_DEV_KEY);
  let nonce: number | undefined;
  return async (to: string, wei: bigint): Promise<{ txid: string; minedAt: number }> => {
    nonce ??= Number(BigInt((await rpc(url, 'eth_getTransactionCount', [wallet.address, 'pending'])) as string));
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: nonce++,
      to,
      value: wei,
      gasLimit: 21_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const txid = (await rpc(url, 'eth_sendRawTransaction', [raw])) as string;
    await rpc(url, 'evm_mine', []);
    return { txid, minedAt: Date.now() };
  };
}

/** The bare reference: `source.block` of each height, one after another, nothing else. */
async function bareFetch(source: DepositSource, heights: number[]): Promise<void> {
  for (const h of heights) {
    const b: ChainBlock | undefined = await source.block(h);
    if (!b || b.transfers.length === 0) throw new Error(`bare fetch: block ${h} ${b ? 'holds no payment' : 'is missing'}`);
  }
}

export async function depositsBench(deps: DepositDeps, sizes: DepositSizes): Promise<DepositFigures> {
  const { redis, log } = deps;
  const anvil = await startAnvil();
  try {
    await rpc(anvil.url, 'evm_setAutomine', [false]);
    const pay = payer(anvil.url);
    const keyPrefix = `${deps.keyPrefix}-deposits`;
    const prefix = servicePrefix(keyPrefix);
    const logger = pino({ level: 'silent' });
    const adaptor: LedgerAdaptor = ethereumFamily.create(LEDGER, ethereumFamily.optionsSchema.parse({ rpcUrl: anvil.url }), {
      logger,
      // The service's transport (src/app/core.ts): the scanner and the bare fetch share it.
      fetch: keepAliveFetch(),
      reservations: new Reservations(redis, prefix),
    });
    const source = adaptor.depositSource as DepositSource;
    const store = new DepositStore(redis, prefix);
    const vaults = new VaultStore(redis, prefix);

    log(`deposits: registering ${sizes.watched} vaults, then ${sizes.blocks} blocks each paying one of them`);
    const records = await registerVaults(vaults, sizes.watched, 'dep');
    const addresses = records.map((r) => singleAddress(adaptor, r).address);
    // Payments spread over the registry, not its first vaults only.
    const addressOf = (i: number) => addresses[(i * 7919) % addresses.length] as string;
    const before = await source.tip();
    const paid: string[] = [];
    for (let i = 0; i < sizes.blocks; i++) paid.push((await pay(addressOf(i), BigInt(1_000_000 + i))).txid);
    const heights = Array.from({ length: sizes.blocks }, (_, i) => before.height + 1 + i);

    // Where the scanner's time goes per block: the source's fetch, the store's step, and the rest (its Redis reads, the filter).
    const spent = { fetchMs: 0, stepMs: 0 };
    const timed =
      <A extends unknown[], R>(f: (...a: A) => Promise<R>, key: keyof typeof spent) =>
      async (...a: A): Promise<R> => {
        const t = performance.now();
        try {
          return await f(...a);
        } finally {
          spent[key] += performance.now() - t;
        }
      };
    const timedSource: DepositSource = {
      tip: () => source.tip(),
      block: timed(source.block.bind(source), 'fetchMs'),
      normalize: source.normalize?.bind(source),
    };
    const timedStore = new DepositStore(redis, prefix);
    timedStore.apply = timed(timedStore.apply.bind(timedStore), 'stepMs');
    const scanner = new LedgerScanner(adaptor, timedSource, { store: timedStore, vaults, logger }, { window: 200, gapLimit: 20, refreshMs: 600_000 });
    const buildStarted = performance.now();
    await scanner.watched.refresh();
    const watchedBuildSeconds = (performance.now() - buildStarted) / 1000;
    await store.initCursor(LEDGER, (await source.block(before.height)) as ChainBlock);
    log(
      `deposits: watched set of ${scanner.watched.size} addresses built in ${r1(watchedBuildSeconds)} s; bare fetch and scanner by turns, ${SCAN_CHUNK} blocks at a time`,
    );
    // Not counted: the first requests open the connection to the node.
    await bareFetch(source, heights.slice(0, 10));
    let bareMs = 0;
    let scanMs = 0;
    let applied = 0;
    const chunkRatios: number[] = [];
    for (let i = 0; i * SCAN_CHUNK < heights.length; i++) {
      const chunk = heights.slice(i * SCAN_CHUNK, (i + 1) * SCAN_CHUNK);
      const bare = async () => {
        const t = performance.now();
        await bareFetch(source, chunk);
        return performance.now() - t;
      };
      const scan = async () => {
        const t = performance.now();
        const pass = await scanner.pass({ maxBlocks: chunk.length, deadline: Date.now() + 600_000 });
        if (pass.applied !== chunk.length)
          throw new Error(`the scanner applied ${pass.applied} of ${chunk.length} blocks${pass.waiting ? `: ${pass.waiting}` : ''}`);
        applied += pass.applied;
        return performance.now() - t;
      };
      // Each goes first in every other chunk: what the node keeps warm from one does not favour the other.
      let bMs: number;
      let sMs: number;
      if (i % 2 === 0) {
        bMs = await bare();
        sMs = await scan();
      } else {
        sMs = await scan();
        bMs = await bare();
      }
      bareMs += bMs;
      scanMs += sMs;
      chunkRatios.push(bMs / sMs);
    }
    const detected = (await store.many(paid.map((t) => depositId(LEDGER, t, 'value')))).length;
    const scannerPerSecond = applied / (scanMs / 1000);
    const bareMeanPerSecond = heights.length / (bareMs / 1000);
    const scan = {
      blocks: sizes.blocks,
      detected,
      scannerPerSecond: r1(scannerPerSecond),
      barePerSecond: r1(bareMeanPerSecond),
      ratio: scannerPerSecond / bareMeanPerSecond,
      chunkRatios: [r2(Math.min(...chunkRatios)), r2(Math.max(...chunkRatios))] as [number, number],
      watchedBuildSeconds: r1(watchedBuildSeconds),
      perBlockMs: {
        fetch: r2(spent.fetchMs / applied),
        step: r2(spent.stepMs / applied),
        other: r2((scanMs - spent.fetchMs - spent.stepMs) / applied),
        bare: r2(1000 / bareMeanPerSecond),
      },
    };
    log(`deposits scan: ${JSON.stringify(scan)}`);

    // The worker goes on from the scan's cursor, on the same registry.
    const latency: DepositLatency[] = [];
    let worker: Omit<DepositFigures['worker'], 'noScan'> | undefined;
    let n = sizes.blocks;
    for (const pollMs of sizes.pollsMs) {
      const child = await deps.startWorker(`worker-deposits-${pollMs}`, {
        REDIS_PREFIX: keyPrefix,
        LEDGERS: JSON.stringify({ [LEDGER]: { rpcUrl: anvil.url } }),
        DEPOSIT_POLL_MS: String(pollMs),
      });
      const rssAtStartMB = r1((await child.stats()).memory.rss / 2 ** 20);
      const detectedAt = async (txids: string[]) => (await store.many(txids.map((t) => depositId(LEDGER, t, 'value')))).map((d) => Date.parse(d.detectedAt));
      const allDetected = (what: string, txids: string[]) => waitFor(what, child, async () => (await detectedAt(txids)).length === txids.length, 180_000);
      // Not counted: the worker's first scan builds its own watched set of the registry.
      await allDetected('the first deposit seen by the worker', [(await pay(addressOf(n++), 1n)).txid]);
      log(`deposits: ${sizes.payments} payments a random 0-0.5 s apart, DEPOSIT_POLL_MS=${pollMs}`);
      const sent: { txid: string; minedAt: number }[] = [];
      for (let i = 0; i < sizes.payments; i++) {
        await sleep(Math.random() * 500);
        sent.push(await pay(addressOf(n++), BigInt(2_000_000 + i)));
      }
      await allDetected(
        `${sizes.payments} deposits detected`,
        sent.map((s) => s.txid),
      );
      const at = await detectedAt(sent.map((s) => s.txid));
      const ms = sent.map((s, i) => (at[i] as number) - s.minedAt);
      const figure = { pollMs, payments: sent.length, msP50: Math.round(pct(ms, 50)), msP99: Math.round(pct(ms, 99)), msMax: Math.round(Math.max(...ms)) };
      latency.push(figure);
      log(`deposits latency: ${JSON.stringify(figure)}`);
      if (!worker) {
        log(`deposits: the worker settling, scanning, ${sizes.watched} vaults watched`);
        worker = { pollMs, rssAtStartMB, ...(await settledMemory(child)) };
        log(`deposits worker memory: ${JSON.stringify(worker)}`);
      }
      await child.stop();
    }

    // The reference for the worker's memory: the same built worker on the same ledger with scanning
    // turned off (DEPOSIT_LEDGERS=none), settled the same way.
    log('deposits: a worker with nothing to scan, settling');
    const idle = await deps.startWorker('worker-no-deposits', {
      REDIS_PREFIX: keyPrefix,
      LEDGERS: JSON.stringify({ [LEDGER]: { rpcUrl: anvil.url } }),
      DEPOSIT_LEDGERS: 'none',
    });
    const noScan = await settledMemory(idle);
    await idle.stop();
    log(`deposits: the worker with nothing to scan: ${JSON.stringify(noScan)}`);

    log(`deposits: the watched map of ${sizes.watchedMemory} vaults, in a process of its own`);
    const mapPrefix = `${deps.keyPrefix}-watched`;
    await registerVaults(new VaultStore(redis, servicePrefix(mapPrefix)), sizes.watchedMemory, 'map');
    const watchedMap = await measureWatchedMap(deps.redisUrl, mapPrefix);
    log(`deposits watched map: ${JSON.stringify(watchedMap)}`);
    return { watched: sizes.watched, scan, latency, worker: { ...(worker as DepositFigures['worker']), noScan }, watchedMap };
  } finally {
    await anvil.stop();
  }
}

/** bench/watched-memory.ts in a process of its own, with `--expose-gc`. */
async function measureWatchedMap(redisUrl: string, keyPrefix: string): Promise<WatchedMemory> {
  return runJsonProcess<WatchedMemory>('watched map measure', 'watched-memory.ts', [redisUrl, keyPrefix], ['--expose-gc']);
}

/** The phase's rows of the bench table (bench/table.ts). */
export function depositRows(f: DepositFigures): Row[] {
  const MB = 2 ** 20;
  const { scan: s, worker: w, watchedMap: m } = f;
  const watched = f.watched.toLocaleString('en-US');
  const rows: Row[] = [
    {
      family: 'Ethereum',
      figure: `deposit scan, ${watched} vaults watched, ${s.blocks} blocks each with a deposit (blocks/s)`,
      value: `${s.scannerPerSecond}`,
      reference: `bare depositSource.block ${s.barePerSecond}`,
      notes: `≥ 0.5 ${verdict(s.ratio >= 0.5)}; ${s.detected} of ${s.blocks} payments detected ${verdict(s.detected === s.blocks)}; ${SCAN_CHUNK}-block chunks by turns, ratio ${s.chunkRatios.join('–')}; per block fetch ${s.perBlockMs.fetch} + step ${s.perBlockMs.step} + other ${s.perBlockMs.other} ms (bare ${s.perBlockMs.bare}); watched set built in ${s.watchedBuildSeconds} s`,
      ratio: s.ratio,
    },
  ];
  for (const l of f.latency) {
    rows.push({
      family: 'Ethereum',
      figure: `deposit detection, block mined → deposit.detected, DEPOSIT_POLL_MS=${l.pollMs}, p50 / p99 (ms)`,
      value: `${l.msP50} / ${l.msP99}`,
      reference: `poll interval ${l.pollMs}`,
      notes: `p99 ≤ poll + 1,000 ${verdict(l.msP99 <= l.pollMs + 1000)}; max ${l.msMax}; ${l.payments} payments a random 0-0.5 s apart; built worker`,
      ratio: l.pollMs / l.msP99,
    });
  }
  rows.push(
    {
      family: 'service',
      figure: `deposit watched map, ${m.addresses.toLocaleString('en-US')} addresses (MB, bytes per address)`,
      value: `${r1(m.bytes / MB)} (${Math.round(m.bytes / m.addresses)} B)`,
      reference: '–',
      notes: `built from the registry in ${m.buildSeconds} s; heap with the map minus heap without, in a process of its own`,
    },
    {
      family: 'service',
      figure: `worker (built, node) scanning deposits, ${watched} vaults watched: RSS settled / heap used (MB)`,
      value: `${w.rssMB} / ${w.heapUsedMB}`,
      reference: `nothing to scan ${w.noScan.rssMB} / ${w.noScan.heapUsedMB}`,
      notes: `< 150 ${verdict(w.rssMB < 150)}; DEPOSIT_POLL_MS=${w.pollMs}; start ${w.rssAtStartMB}, after the payments ${w.rssAfterLoadMB}, peak ${w.peakRssMB}; heap committed ${w.heapCommittedMB} (young generation ${w.newSpaceMB}; nothing to scan ${w.noScan.heapCommittedMB} (${w.noScan.newSpaceMB})), ${w.majorGCs} full GCs`,
      ratio: w.noScan.rssMB / w.rssMB,
    },
  );
  return rows;
}
