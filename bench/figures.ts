/**
 * What a bench run measured (its figures) and how the table shows them: one row per family and
 * figure, each against its reference and ending in its ratio (bench/table.ts prints them).
 */
import type { ApiMemory } from './api-memory.js';
import type { CreateFigures } from './create-phase.js';
import { coreSharesText, type CoreShares } from './cores.js';
import { depositRows, type DepositFigures } from './deposits.js';
import type { BareSend, OrderCheck, SendGaps } from './drain-kit.js';
import type { IdleLatency } from './idle-latency.js';
import type { LoadResult } from './load.js';
import { scaleOutRows, type ScaleOutFigures } from './scale-out.js';
import { r2 } from './stats.js';
import type { StatusUnderBatches } from './status-under-batches.js';
import { verdict, type Row } from './table.js';
import type { UtxoFigures } from './utxo.js';
import type { WorkerMemory } from './worker-memory.js';

/** The bare client's gaps, as a drain row's note names them beside the service's. */
const gapsOf = (g: SendGaps | undefined): string => (g ? ` (bare ${g.p50} / ${g.p90} ms, ${g.totalSeconds} s)` : '');

/** How the run was set up, as the rows name it. */
export interface RunSetup {
  /** Connections of the ingest load. */
  connections: number;
  /** API processes on the one port. */
  apiProcesses: number;
  /** Keys per address-from-publickey request. */
  addressBatch: number;
}

export interface Figures {
  /** Callback ingest, per family's callback shape. */
  ingest?: IngestFigures[];
  address?: Record<string, { httpKeysPerSec: number; rawKeysPerSec: number; ratio: number; batchP50Ms: number }>;
  statusUnderBatches?: { threads: StatusUnderBatches; slices: StatusUnderBatches };
  create?: CreateFigures;
  /** Per family, live then backlog. */
  drains?: DrainFigures[];
  utxo?: UtxoFigures;
  idle?: IdleLatency;
  memory?: { tsx: WorkerMemory; built: WorkerMemory };
  apiMemory?: { tsx?: ApiMemory; built?: ApiMemory };
  deposits?: DepositFigures;
  scaleOut?: ScaleOutFigures;
}

export interface IngestFigures {
  family: string;
  /** The callback's shape in words: `10 secp256k1 signatures`. */
  shape: string;
  service: LoadResult;
  echo: LoadResult;
  ratio: number;
  enqueued: number;
  apiCpuMsPerCallback: number;
  echoCpuMsPerRequest: number;
  redisCpuMsPerCallback: number;
  /** The CPU the callback's signature checks alone take (ms), timed in the bench process. */
  checksCpuMsPerCallback?: number;
  /** The Redis was started by the bench (REDIS_URL did not answer), so its CPU is the callbacks' alone. */
  ownRedis: boolean;
}

export interface DrainFigures {
  family: string;
  mode: 'live' | 'backlog';
  withdrawals: number;
  created: number;
  /** Creations asked again after a 503 (Bitcoin: coins claimed by concurrent withdrawals of the vault) or a lost connection. */
  createRetries: number;
  createSeconds: number;
  /** Distinct vaults the withdrawals were made from (a Solana vault carries one at a time, a Stellar account's sequence is serial). */
  createVaults: number;
  /** live: first callback → last broadcast; backlog: broadcasts resumed → last broadcast. */
  drainSeconds: number;
  broadcastsPerSecond: number;
  /** The same node taking as many pre-signed transactions from a bare client, one at a time, through the same facade. */
  bare: BareSend;
  drainRatio: number;
  rpcMsP50: number;
  /** Between one answer and the next send, where the service sent one request after another (an account's numbers). */
  sendGaps?: SendGaps;
  /** Transactions the workers sent to the node during the drain, and distinct transactions among them. */
  nodeSends: number;
  distinctSent: number;
  /** HTTP requests that carried them (a JSON-RPC batch is one). */
  sendRequests: number;
  /** Runs of the withdrawals' broadcast jobs up to the drain's end (looks again included). */
  broadcastRuns: number;
  /** Garbage collections of the (first) worker from the callbacks' release to the end: scavenges, full. */
  workerGcs: { minor: number; major: number };
  callbackToBroadcastMsP50: number;
  callbackToBroadcastMsP99: number;
  /** First callback sent → last one accepted by the API: the receiver's share of the drain. */
  callbacksAcceptedSeconds: number;
  /** The family's ordering rule (nonces, coins, sequences, durable nonces), checked on the node. */
  order: OrderCheck;
  failed: number;
  /** CPU of the worker per withdrawal during the drain (live: from the first callback; backlog: from the resume), and of the API. */
  workerCpuMsPerWithdrawal: number;
  /** The same up to the worker having nothing left to do for them (confirmations, looks again). */
  workerCpuMsPerWithdrawalUntilIdle?: number;
  apiCpuMsPerWithdrawal: number;
  /** Every process's CPU over the drain (live: from the release; backlog: from the resume), and the cores it kept busy. */
  cores?: CoreShares;
  workerRssMB: number;
}

/** Callback ingest's target ratio to the echo: Ethereum's one signature, the other families' heavier shapes. */
const ingestTarget = (family: string): number => (family === 'Ethereum' ? 0.7 : 0.5);
/** Settled RSS (MB) a process must stay under: as deployed (built), or through tsx, which adds its compiler. */
const memoryTarget = (how: string): number => (how.startsWith('built') ? 150 : 200);

/**
 * The receiver answers a callback as the echo answers its body (HTTP, JSON) and checks its
 * signatures on top: what the checks alone cost, and the CPU ratio a receiver doing nothing else
 * would reach against this echo.
 */
export function checksBound(echoCpuMs: number, checksCpuMs: number): string {
  const bound = r2(echoCpuMs / (echoCpuMs + checksCpuMs));
  return `signature checks alone ${checksCpuMs} ms; the echo's work and the checks, nothing else: CPU ratio ${bound}`;
}

/** The figures as the table's rows (bench/table.ts): one per family and figure, each against its reference. */
export function rows(f: Figures, run: RunSetup): Row[] {
  const out: Row[] = [];
  const add = (family: string, figure: string, value: string, reference: string, notes: string, ratio?: number) =>
    out.push({ family, figure, value, reference, notes, ratio });
  for (const i of f.ingest ?? []) {
    const { service: s, echo: e, ratio, apiCpuMsPerCallback: apiCpu, echoCpuMsPerRequest: echoCpu } = i;
    const conn = `${run.connections} conn${run.apiProcesses > 1 ? `, ${run.apiProcesses} API processes` : ''}`;
    add(
      i.family,
      `callback ingest, ${i.shape}, ${conn} (req/s)`,
      `${Math.round(s.rps)}`,
      `echo ${Math.round(e.rps)}`,
      `≥ ${ingestTarget(i.family)} ${verdict(ratio >= ingestTarget(i.family))}; ${s.requests} requests, ${s.non2xx + s.errors} non-2xx, ${i.enqueued} jobs enqueued`,
      ratio,
    );
    add(
      i.family,
      `callback ingest p50 / p99 (ms), ${i.shape}`,
      `${s.p50} / ${s.p99}`,
      `echo ${e.p50} / ${e.p99}`,
      `p99 < 50 ${verdict(s.p99 < 50)}`,
      e.p99 / s.p99,
    );
    add(
      i.family,
      `callback ingest CPU per request (ms), ${i.shape}`,
      `${apiCpu}`,
      `echo ${echoCpu}`,
      [
        `load generator ${Math.round(s.loadCpuMs * 1000) / 1000} (echo ${Math.round(e.loadCpuMs * 1000) / 1000}); Redis ${i.redisCpuMsPerCallback}${i.ownRedis ? '' : ' (shared Redis)'}`,
        ...(i.checksCpuMsPerCallback === undefined ? [] : [checksBound(echoCpu, i.checksCpuMsPerCallback)]),
      ].join('; '),
      echoCpu / apiCpu,
    );
  }
  const familyOf: Record<string, string> = { ethdev: 'Ethereum', btcregtest: 'Bitcoin', stellardev: 'Stellar', solanadev: 'Solana' };
  for (const [id, a] of Object.entries(f.address ?? {})) {
    add(
      familyOf[id] ?? id,
      `address-from-publickey, ${run.addressBatch}-key batches (keys/s)`,
      `${a.httpKeysPerSec}`,
      `library ${a.rawKeysPerSec}`,
      `≥ 0.8 ${verdict(a.ratio >= 0.8)}`,
      a.ratio,
    );
  }
  if (f.statusUnderBatches) {
    const { threads: t, slices: s } = f.statusUnderBatches;
    add(
      'service',
      `GET /status p50 / p99 (ms), ${t.batches} × ${t.keysPerBatch}-key batches`,
      `${t.loaded.msP50} / ${t.loaded.msP99}`,
      `DERIVE_THREADS=0 ${s.loaded.msP50} / ${s.loaded.msP99}`,
      `p99 < 20 ${verdict(t.loaded.msP99 < 20)}; idle ${t.idle.msP50} / ${t.idle.msP99}; max ${t.loaded.msMax}; batches ${t.batchesMs} ms (${s.batchesMs} ms)`,
      s.loaded.msP99 / t.loaded.msP99,
    );
  }
  if (f.create) {
    const c = f.create;
    const calls =
      Object.entries(c.calls)
        .map(([m, n]) => `${m} ${n}`)
        .join(', ') || 'none';
    add(
      'Ethereum',
      `withdrawals created, one vault, ${c.inFlight} in flight (withdrawals/s)`,
      `${c.perSecond}`,
      '–',
      `≥ 600/s, API CPU ≤ 1 ms each, POST p99 ≤ 150 ms ${verdict(c.perSecond >= 600 && c.refused === 0 && c.apiCpuMsPerWithdrawal <= 1 && c.msP99 <= 150)}; ${c.created} in ${c.seconds} s, ${c.refused} refused; POST p50 / p99 ${c.msP50} / ${c.msP99} ms; API CPU ${c.apiCpuMsPerWithdrawal} ms each; node round trips ${c.roundTripsPerWithdrawal} each (${calls}); nonces 0..n-1 ${verdict(c.nonces.contiguous)}`,
    );
  }
  // Creation as each family's drain made its withdrawals (the live run's): POST /withdrawals, 64 in flight, callbacks held.
  for (const p of (f.drains ?? []).filter((d) => d.mode === 'live')) {
    add(
      p.family,
      `withdrawals created, ${p.createVaults} ${p.createVaults === 1 ? 'vault' : 'vaults'}, 64 in flight (withdrawals/s)`,
      `${Math.round(p.created / p.createSeconds)}`,
      '–',
      `${p.created} in ${p.createSeconds} s${p.createRetries ? `, ${p.createRetries} asked again after a 503` : ''}; from the drain phase (pipeline-${p.family.toLowerCase()})`,
    );
  }
  for (const p of f.drains ?? []) {
    const live = p.mode === 'live';
    add(
      p.family,
      live
        ? `drain, live: ${p.withdrawals} withdrawals, first callback → last broadcast (s)`
        : `drain, backlog: ${p.withdrawals} signed withdrawals, resume → last broadcast (s)`,
      `${p.drainSeconds} (${p.broadcastsPerSecond}/s)`,
      `bare client ${p.bare.seconds} (${p.bare.perSecond}/s)`,
      [
        `≥ 0.5 ${verdict(p.drainRatio >= 0.5)}`,
        `sends ${p.nodeSends} / distinct ${p.distinctSent} in ${p.sendRequests} requests, none twice ${verdict(p.nodeSends === p.distinctSent && p.distinctSent === p.created)}`,
        `${p.order.rule} ${verdict(p.order.ok)}: ${p.order.detail}`,
        `send p50 ${p.rpcMsP50} ms (bare ${p.bare.rpcMsP50})`,
        ...(p.sendGaps
          ? [`answer → next send p50 / p90 ${p.sendGaps.p50} / ${p.sendGaps.p90} ms, ${p.sendGaps.totalSeconds} s in all${gapsOf(p.bare.gaps)}`]
          : []),
        ...(live ? [`callback accepted → BROADCAST p50 ${p.callbackToBroadcastMsP50} ms`] : []),
        `callbacks accepted in ${p.callbacksAcceptedSeconds} s`,
        `CPU per withdrawal worker ${p.workerCpuMsPerWithdrawal} (until idle ${p.workerCpuMsPerWithdrawalUntilIdle ?? '?'}) / API ${p.apiCpuMsPerWithdrawal} ms`,
        ...(p.cores ? [coreSharesText(p.cores, 'worker')] : []),
        `${p.failed} failed; worker RSS ${p.workerRssMB} MB; ${p.created} created in ${p.createSeconds} s${p.createRetries ? ` (${p.createRetries} asked again)` : ''}`,
        ...(p.bare.note ? [`bare: ${p.bare.note}`] : []),
      ].join('; '),
      p.drainRatio,
    );
  }
  if (f.utxo) {
    const u = f.utxo;
    for (const [name, c] of [
      ['few inputs', u.small],
      ['~750 coins', u.large],
      ['consolidation', u.consolidate],
    ] as const) {
      add(
        'Bitcoin',
        `craft from a ${u.utxos}-coin vault, ${name}: p50 / max (ms)`,
        `${c.msP50} / ${c.msMax}`,
        `node listing p50 ${u.listingMsP50}`,
        `< 200 ${verdict(c.msP50 < 200)}; ${c.inputs} inputs, ${c.vbytes} vB${name === '~750 coins' ? `; combine p50 ${u.combineLargeMsP50} ms` : ''}`,
        u.listingMsP50 / c.msP50,
      );
    }
  }
  if (f.idle) {
    const i = f.idle;
    add(
      'Ethereum',
      `idle: callback accepted → node took it, beyond the node's time, p50 / p99 (ms), ${i.withdrawals} one at a time`,
      `${i.beyondMsP50} / ${i.beyondMsP99}`,
      `node RPC p50 ${i.rpcMsP50}`,
      `p50 ≤ 15, p99 ≤ 50 ${verdict(i.beyondMsP50 <= 15 && i.beyondMsP99 <= 50)}; max ${i.beyondMsMax}; total p50 ${i.totalMsP50}`,
      i.rpcMsP50 / i.totalMsP50,
    );
  }
  for (const [how, m] of [
    ['built, node', f.apiMemory?.built],
    ['tsx', f.apiMemory?.tsx],
  ] as const) {
    if (!m) continue;
    add(
      'service',
      `API (${how}) after ${m.requests} mixed requests: RSS settled / heap used (MB)`,
      `${m.rssMB} / ${m.heapUsedMB}`,
      '–',
      `< ${memoryTarget(how)} ${verdict(m.rssMB < memoryTarget(how))}; start ${m.rssAtStartMB} / ${m.heapUsedAtStartMB}, after load ${m.rssAfterLoadMB}, peak ${m.peakRssMB}; heap committed ${m.heapCommittedMB}, ${m.majorGCs} full GCs; metric series ${m.metricSeries.before} → ${m.metricSeries.after}; ${m.violations} contract violations`,
    );
  }
  for (const [how, m] of [
    ['built, node', f.memory?.built],
    ['tsx', f.memory?.tsx],
  ] as const) {
    if (!m) continue;
    add(
      'service',
      `worker (${how}) after ${m.jobs} jobs: RSS settled / heap used (MB)`,
      `${m.rssMB} / ${m.heapUsedMB}`,
      '–',
      `< ${memoryTarget(how)} ${verdict(m.rssMB < memoryTarget(how))}; start ${m.rssAtStartMB}, after load ${m.rssAfterLoadMB}, peak ${m.peakRssMB}; heap committed ${m.heapCommittedMB}, ${m.majorGCs} full GCs, ${m.keptCompleted} jobs kept`,
    );
  }
  if (f.deposits) out.push(...depositRows(f.deposits));
  if (f.scaleOut) out.push(...scaleOutRows(f.scaleOut));
  return out;
}
