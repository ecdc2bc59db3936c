/** Child processes of the bench: the real service entry points, the echo server, the load generator. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { imageEnv, imageNodeOptions } from '../test/deploy/compose.js';
import type { LoadResult, LoadSpec } from './load.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS = path.join(ROOT, 'bench', 'results');
mkdirSync(RESULTS, { recursive: true });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Child {
  proc: ChildProcess;
  log: string;
  /** process.memoryUsage(), peak RSS, eth_sendRawTransaction timings and node round trips (service children started with the preload). */
  stats(): Promise<ChildStats>;
  /** The `eth_sendRawTransaction` calls the child made so far and its GC counts (service children only). */
  counters(): Promise<ChildCounters>;
  /** Writes a V8 heap snapshot of the child to `file` (service children only); resolves with the file. */
  heapSnapshot(file: string): Promise<string>;
  stop(): Promise<void>;
}

export interface ChildCounters {
  sent: number;
  gc: { minor: number; major: number };
}

export interface ChildStats {
  memory: NodeJS.MemoryUsage;
  peakRss: number;
  /** Each eth_sendRawTransaction: txid, time at the node (ms), when its answer was read (epoch ms). */
  sends: { txid: string; ms: number; at: number }[];
  /** JSON-RPC requests to the node: HTTP round trips, and calls by method. */
  rpc: { roundTrips: number; calls: Record<string, number> };
  /** process.cpuUsage(): CPU time the process used, µs. */
  cpu: NodeJS.CpuUsage;
  /** V8's committed bytes per heap space and its own malloc (bench/preload.ts). */
  v8: { spaces: Record<string, { physical: number; used: number }>; physical: number; malloced: number; peakMalloced: number };
  /** Garbage collections since the start: young-generation scavenges and full mark-compacts. */
  gc: ChildCounters['gc'];
}

export interface StartOptions {
  preload?: boolean;
  profile?: boolean;
  /** Run the compiled JavaScript under this directory (see buildDist) instead of the sources through tsx. */
  built?: string;
  /** More V8/Node flags (e.g. `--max-semi-space-size=4`). */
  nodeFlags?: string[];
}

/**
 * Starts `node --import tsx [--import bench/preload.ts] <script>` with its stdout and stderr
 * in a log file under bench/results (so the bench process never reads the service's log);
 * with `built`, `node [--import <built>/bench/preload.js] <built>/<script as .js>`, as deployed.
 */
export function startNode(name: string, script: string, args: string[], env: Record<string, string>, opts: StartOptions = {}): Child {
  const log = path.join(RESULTS, `${name}.log`);
  const fd = openSync(log, 'w');
  const from = (file: string) => (opts.built ? path.join(opts.built, file.replace(/\.ts$/, '.js')) : path.join(ROOT, file));
  const imports = [
    ...(opts.built ? [] : ['--import', 'tsx']),
    ...(opts.preload ? ['--import', from('bench/preload.ts')] : []),
    ...(opts.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(RESULTS, 'prof')] : []),
    // BENCH_SERVICE_NODE_FLAGS (e.g. `--max-semi-space-size=2`) tries V8 flags on every service process.
    ...(script.startsWith('src/') ? (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean) : []),
    ...(opts.nodeFlags ?? []),
  ];
  // A built process gets the image's NODE_OPTIONS and malloc arenas (Dockerfile), as in production.
  const dockerfile = path.join(ROOT, 'Dockerfile');
  const nodeOptions = opts.built ? [process.env.NODE_OPTIONS, imageNodeOptions(dockerfile)].filter(Boolean).join(' ') : process.env.NODE_OPTIONS;
  const arenas = opts.built ? imageEnv('MALLOC_ARENA_MAX', dockerfile) : '';
  const proc = spawn(process.execPath, [...imports, from(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}), ...(arenas ? { MALLOC_ARENA_MAX: arenas } : {}) },
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  closeSync(fd);
  return {
    proc,
    log,
    stats: () => ask<ChildStats>(proc, name, 'stats', 'stats', 10_000),
    counters: () => ask<ChildCounters>(proc, name, 'counters', 'counters', 10_000),
    // A snapshot of a few hundred MB takes seconds to write on a loaded machine.
    heapSnapshot: async (file) => (await ask<{ file: string }>(proc, name, { kind: 'heap-snapshot', file }, 'heap-snapshot', 120_000)).file,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Sends `message` to a child over IPC and waits for its answer of kind `kind`. */
function ask<T>(proc: ChildProcess, name: string, message: unknown, kind: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not answer the ${kind} request`)), timeoutMs);
    const onMessage = (m: unknown) => {
      if (typeof m === 'object' && m && (m as { kind?: string }).kind === kind) {
        clearTimeout(timer);
        proc.off('message', onMessage);
        resolve(m as T);
      }
    };
    proc.on('message', onMessage);
    proc.send(message as string);
  });
}

/**
 * Compiles the service (src, adaptors) and the bench preload to JavaScript under
 * bench/results/dist with the production build's settings, so a process can run as the image
 * runs it: plain `node`, no TypeScript compiler in the process. Returns the directory.
 */
export async function buildDist(): Promise<string> {
  const out = path.join(RESULTS, 'dist');
  const tsconfig = path.join(RESULTS, 'tsconfig.dist.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.build.json'),
      compilerOptions: { outDir: out, rootDir: ROOT, sourceMap: false },
      include: ['src', 'adaptors', 'bench/preload.ts'].map((p) => path.join(ROOT, p)),
      exclude: ['**/*.test.ts', '**/test-kit.ts'].map((p) => path.join(ROOT, p)),
    }),
  );
  const proc = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((r) => proc.once('exit', r));
  if (code !== 0) throw new Error(`the build failed (${code}): ${output.slice(0, 2000)}`);
  return out;
}

export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Waits until `check` holds, failing with the child's log tail when it exits or time runs out. */
export async function waitFor(what: string, child: Child | undefined, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child && child.proc.exitCode !== null) throw new Error(`${what}: the process exited (${child.proc.exitCode})\n${tail(child.log)}`);
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await sleep(100);
  }
  throw new Error(`${what}: timed out${child ? `\n${tail(child.log)}` : ''}`);
}

/**
 * CPU seconds (user + system, every thread) a child has used so far, from /proc (Linux); NaN
 * elsewhere. Unlike a profile's wall-clock samples, it does not grow when other processes
 * hold the cores, so CPU per request compares runs on a busy machine.
 */
export function cpuSeconds(child: Child): number {
  return child.proc.pid === undefined ? NaN : treeCpuSeconds(child.proc.pid);
}

/** A process's CPU seconds and its live children's (an API started as several processes). */
export function treeCpuSeconds(pid: number): number {
  try {
    return pidCpuSeconds(pid) + childPids(pid).reduce((sum, c) => sum + treeCpuSeconds(c), 0);
  } catch {
    return NaN;
  }
}

/** One process's own CPU seconds (user + system, every thread), from /proc/<pid>/stat; throws when it is gone. */
export function pidCpuSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in 1/100 s.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The live children of a process (the API processes node:cluster forked). */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
}

export const answers = async (url: string): Promise<boolean> => (await fetch(url)).status < 500;

export const logSays = (child: Child, text: string) => () => readFileSync(child.log, 'utf8').includes(text);

/** Runs a bench script (`bench/<script>`, through tsx) in a process of its own; its answer is the JSON of its last stdout line. */
export async function runJsonProcess<T>(what: string, script: string, args: string[], nodeFlags: string[] = []): Promise<T> {
  const proc = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', path.join(ROOT, 'bench', script), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => proc.once('exit', r));
  const line = out.trim().split('\n').pop();
  if (code !== 0 || !line) throw new Error(`${what} failed (${code}): ${err || out}`);
  return JSON.parse(line) as T;
}

/** Autocannon passes, one after the other, from one process of their own (bench/load.ts). */
export async function runLoad(specs: LoadSpec[]): Promise<LoadResult[]> {
  const specFile = path.join(RESULTS, `load-spec-${process.pid}.json`);
  writeFileSync(specFile, JSON.stringify(specs));
  return runJsonProcess<LoadResult[]>('load generator', 'load.ts', [specFile]);
}
