/**
 * The scale-out phase's measuring and its table rows. The same Ethereum live drain runs twice in
 * one bench run (bench/run.ts drives it): (a) one API and one worker process on one Redis, (b)
 * two API processes (node:cluster, bench/cluster-api.ts) and two worker processes on a
 * three-master Redis Cluster the bench starts (test/helpers/redis-cluster.ts). Beside the drain's
 * throughput and latency it measures what bounds their ratio: the CPU of every process of the set-up
 * over the drain's window (each API and worker process, each Redis node), the whole machine's
 * busy share of its cores, and the load average.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { childPids, pidCpuSeconds, treeCpuSeconds, type Child } from './procs.js';
import { verdict, type Row } from './table.js';
import { r2 } from './stats.js';

export interface ScaleOutSetup {
  name: 'a' | 'b';
  apiProcesses: number;
  workerProcesses: number;
  /** Redis masters: 1 is the bench's single Redis, more a Redis Cluster of the bench's own. */
  redisMasters: number;
}

export const SCALE_OUT_SETUPS: ScaleOutSetup[] = [
  { name: 'a', apiProcesses: 1, workerProcesses: 1, redisMasters: 1 },
  { name: 'b', apiProcesses: 2, workerProcesses: 2, redisMasters: 3 },
];

/** Cores busy (CPU seconds over the window's seconds) of each process of a set-up during the drain. */
export interface ScaleOutUsage {
  windowSeconds: number;
  /** Each API process (the node:cluster primary's own share is in `apiPrimary`). */
  api: number[];
  apiPrimary: number;
  workers: number[];
  /** Each Redis master, from its INFO cpu (a shared Redis counts its other clients too). */
  redis: number[];
  /** anvil (the node the drain sends to) and the bench process itself (custody emulator, polling). */
  anvil: number;
  bench: number;
  /** The whole machine's busy cores (/proc/stat), of `cores`; `others` is what none of the above used: other work on the machine. */
  machine: number;
  others: number;
  cores: number;
  loadAverageBefore: number[];
  loadAverageAfter: number[];
}

/**
 * Vaults the drain's withdrawals come from: one (the pipeline phase's drain), whose sends are
 * serial by design (one sender per account at a time, src/withdrawals/sending/send-order.ts),
 * and four, where a second worker can send for other accounts meanwhile.
 */
export const SCALE_OUT_VAULTS = [1, 4];

export interface ScaleOutRun {
  setup: ScaleOutSetup;
  vaults: number;
  /** The Redis the set-up ran on is the bench's own (its CPU is the drain's alone). */
  ownRedis: boolean;
  withdrawals: number;
  drainSeconds: number;
  broadcastsPerSecond: number;
  callbackToBroadcastMsP50: number;
  callbackToBroadcastMsP99: number;
  callbacksAcceptedSeconds: number;
  barePerSecond: number;
  orderOk: boolean;
  /** Transactions the workers sent to the node, and distinct ones among them (each withdrawal once: equal to `withdrawals`). */
  sends: number;
  distinct: number;
  failed: number;
  usage: ScaleOutUsage;
}

export interface ScaleOutFigures {
  runs: ScaleOutRun[];
}

/** What the drain calls at its window's start (callbacks released) and end (every withdrawal broadcast). */
export interface DrainWindow {
  start(): Promise<void>;
  end(): Promise<void>;
}

/** The machine's busy and total CPU seconds so far (every core), from /proc/stat. */
function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  // idle and iowait are the 4th and 5th.
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

async function redisCpu(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/**
 * A window over the set-up's processes: `start` and `end` read every process's CPU, each Redis
 * master's, the machine's and the load average; `usage()` gives cores busy in between.
 */
export function usageWindow(api: Child, apiProcesses: number, workers: Child[], redisUrls: string[]): DrainWindow & { usage(): ScaleOutUsage } {
  const apiPid = api.proc.pid as number;
  // Several API processes: the node:cluster primary and its forks (its other child is tsx's esbuild).
  const forks = () => (apiProcesses > 1 ? childPids(apiPid).filter((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('main.ts')) : []);
  // anvil is a child of the bench process.
  const anvilPid = childPids(process.pid).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('anvil'));
  const ps = () => {
    const f = forks();
    return {
      primary: f.length ? pidCpuSeconds(apiPid) : 0,
      api: f.length ? f.map(treeCpuSeconds) : [treeCpuSeconds(apiPid)],
      workers: workers.map((w) => treeCpuSeconds(w.proc.pid as number)),
      anvil: anvilPid === undefined ? NaN : pidCpuSeconds(anvilPid),
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    };
  };
  const clients = redisUrls.map((url) => new Redis(url));
  type Reading = { at: number; procs: ReturnType<typeof ps>; redis: number[]; machine: ReturnType<typeof machineCpu>; load: number[] };
  const read = async (): Promise<Reading> => ({
    at: performance.now(),
    procs: ps(),
    redis: await Promise.all(clients.map(redisCpu)),
    machine: machineCpu(),
    load: loadavg().map(r2),
  });
  let before: Reading | undefined;
  let after: Reading | undefined;
  return {
    start: async () => {
      before = await read();
    },
    end: async () => {
      after = await read();
      for (const c of clients) c.disconnect();
    },
    usage: () => {
      if (!before || !after) throw new Error('the drain window was not opened and closed');
      const b = before;
      const a = after;
      const s = (a.at - b.at) / 1000;
      const busy = (x: number, y: number) => (x - y) / s;
      const each = (xs: number[], ys: number[]) => xs.map((x, i) => busy(x, ys[i] ?? NaN));
      const api = each(a.procs.api, b.procs.api);
      const workers = each(a.procs.workers, b.procs.workers);
      const redis = each(a.redis, b.redis);
      const [apiPrimary, anvil, bench] = [busy(a.procs.primary, b.procs.primary), busy(a.procs.anvil, b.procs.anvil), busy(a.procs.bench, b.procs.bench)];
      const machine = (a.machine.busy - b.machine.busy) / ((a.machine.total - b.machine.total) / cpus().length);
      const measured = [...api, apiPrimary, ...workers, ...redis, anvil, bench].reduce((x, y) => x + y, 0);
      return {
        windowSeconds: r2(s),
        api: api.map(r2),
        apiPrimary: r2(apiPrimary),
        workers: workers.map(r2),
        redis: redis.map(r2),
        anvil: r2(anvil),
        bench: r2(bench),
        machine: r2(machine),
        others: r2(machine - measured),
        cores: cpus().length,
        loadAverageBefore: b.load,
        loadAverageAfter: a.load,
      };
    },
  };
}

/** The phase's rows: throughput and latency of (b) against (a), then what each set-up's processes used. */
export function scaleOutRows(f: ScaleOutFigures): Row[] {
  return [...new Set(f.runs.map((r) => r.vaults))].flatMap((vaults) => {
    const a = f.runs.find((r) => r.vaults === vaults && r.setup.name === 'a');
    const b = f.runs.find((r) => r.vaults === vaults && r.setup.name === 'b');
    return a && b ? pairRows(a, b) : [];
  });
}

function pairRows(a: ScaleOutRun, b: ScaleOutRun): Row[] {
  const from = `${b.vaults} ${b.vaults === 1 ? 'vault' : 'vaults'}`;
  const label = (r: ScaleOutRun) =>
    `${r.setup.apiProcesses} API + ${r.setup.workerProcesses} worker${r.setup.workerProcesses > 1 ? 's' : ''}, ${r.setup.redisMasters > 1 ? `${r.setup.redisMasters}-master Redis Cluster` : 'one Redis'}`;
  const sum = (xs: number[]) => r2(xs.reduce((x, y) => x + y, 0));
  const usage = (r: ScaleOutRun) => {
    const u = r.usage;
    return [
      `API ${u.api.join(' + ')}${u.apiPrimary ? ` (+ primary ${u.apiPrimary})` : ''}`,
      `workers ${u.workers.join(' + ')}`,
      `Redis ${u.redis.join(' / ')}${r.ownRedis ? '' : ' (shared Redis)'}`,
      `anvil ${u.anvil}; bench process ${u.bench}`,
      `machine ${u.machine} of ${u.cores} (other work ${u.others})`,
      `load average ${u.loadAverageBefore.join(' ')} → ${u.loadAverageAfter.join(' ')}`,
      `over ${u.windowSeconds} s`,
    ].join('; ');
  };
  const ratio = b.broadcastsPerSecond / a.broadcastsPerSecond;
  return [
    {
      family: 'Ethereum',
      figure: `scale-out, live drain of ${b.withdrawals} withdrawals from ${from}: ${label(b)} (broadcasts/s)`,
      value: `${b.broadcastsPerSecond} (${b.drainSeconds} s)`,
      reference: `${label(a)}: ${a.broadcastsPerSecond} (${a.drainSeconds} s)`,
      notes: [
        `bare client ${b.barePerSecond}/s (a: ${a.barePerSecond}/s)`,
        `callbacks accepted in ${b.callbacksAcceptedSeconds} s (a: ${a.callbacksAcceptedSeconds} s)`,
        `nonces in order ${b.orderOk && a.orderOk ? 'both' : `a ${a.orderOk}, b ${b.orderOk}`}`,
        `sends / distinct ${b.sends} / ${b.distinct} (a: ${a.sends} / ${a.distinct}), none twice ${verdict([a, b].every((r) => r.sends === r.distinct && r.distinct === r.withdrawals))}`,
        `${a.failed + b.failed} failed`,
      ].join('; '),
      ratio,
    },
    {
      family: 'Ethereum',
      figure: `scale-out, ${from}: callback accepted → BROADCAST p50 / p99 (ms), ${label(b)}`,
      value: `${b.callbackToBroadcastMsP50} / ${b.callbackToBroadcastMsP99}`,
      reference: `a: ${a.callbackToBroadcastMsP50} / ${a.callbackToBroadcastMsP99}`,
      notes: 'ratio: p99 of a over p99 of b',
      ratio: a.callbackToBroadcastMsP99 / b.callbackToBroadcastMsP99,
    },
    ...[a, b].map((r): Row => ({
      family: 'service',
      figure: `scale-out (${r.setup.name}), ${from}: cores busy during the drain, ${label(r)}`,
      value: `${sum([...r.usage.api, r.usage.apiPrimary, ...r.usage.workers, ...r.usage.redis])}`,
      reference: '–',
      // The set-up's CPU per withdrawal: what the same work costs spread over more processes.
      notes: `${r2((sum([...r.usage.api, r.usage.apiPrimary, ...r.usage.workers, ...r.usage.redis]) * r.usage.windowSeconds * 1000) / r.withdrawals)} ms CPU per withdrawal; ${usage(r)}`,
    })),
  ];
}
