/**
 * What a fault scenario runs on: its own Redis key prefix, a real anvil, the custody emulator in
 * this process, and the service's real entry points (`src/main.ts`, `src/worker-main.ts`) as child
 * processes that a scenario may SIGKILL and start again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startInMemoryCustodyEmulator, type RunningInMemoryCustodyEmulator } from '../src/dev/custody-emulator/index.js';
import { DevChainFunder } from '../adaptors/ethereum/local-node/dev-chain.js';
import { freePort } from '../src/dev/free-port.js';
import { startAnvil, type LocalAnvil } from '../adaptors/ethereum/local-node/local-anvil.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS = path.join(ROOT, 'faults', 'results');
export const SECRET = 'faults-callback-secret-0123456789';
export const API_KEY = 'faults-api-key-0123456789abcdef0123';

/** A process start compiles the service with tsx: slow on a loaded machine, so generous. */
const START_TIMEOUT_MS = 180_000;

export interface Proc {
  name: string;
  proc: ChildProcess;
  log: string;
  alive(): boolean;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `node --import tsx <script>` with its output in faults/results/<name>.log. */
export function startNode(name: string, script: string, env: Record<string, string>): Proc {
  mkdirSync(RESULTS, { recursive: true });
  const log = path.join(RESULTS, `${name}.log`);
  const fd = openSync(log, 'a');
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script)], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  return {
    name,
    proc,
    log,
    alive,
    kill: async (signal = 'SIGKILL') => {
      if (!alive()) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

export function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000, proc?: Proc): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (proc && !proc.alive()) throw new Error(`${what}: ${proc.name} exited\n${tail(proc.log)}`);
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await sleep(100);
  }
  throw new Error(`${what}: timed out${proc ? `\n${tail(proc.log)}` : ''}`);
}

export interface StackOptions {
  name: string;
  redisUrl: string;
  /** Key prefix; a `{hash-tag}` one for Redis Cluster. */
  prefix: string;
  apis: number;
  workers: number;
  /** Extra environment of every service process. */
  env?: Record<string, string>;
  /** How long the simulated quorum takes to approve. Default 200 ms. */
  approvalDelayMs?: number;
}

export interface Stack {
  anvil: LocalAnvil;
  funder: DevChainFunder;
  custody: RunningInMemoryCustodyEmulator;
  apis: (Proc & { url: string })[];
  workers: Proc[];
  ledgers: Record<string, unknown>;
  /** Starts (again) API i on its own port. */
  startApi(i: number): Promise<void>;
  startWorker(i: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(o: StackOptions): Promise<Stack> {
  const anvil = await startAnvil({ blockTime: 1, mixedMining: true });
  const funder = new DevChainFunder(anvil.url);
  const ports = await Promise.all(Array.from({ length: o.apis }, () => freePort()));
  const custody = await startInMemoryCustodyEmulator({
    // Each sign request names its own API's callback URL; this base is the fallback only.
    callback: { secret: SECRET, baseUrl: `http://127.0.0.1:${ports[0]}`, attempts: 5, baseDelayMs: 500 },
    quorum: { approvers: 3, required: 2, approvalDelayMs: o.approvalDelayMs ?? 200 },
  });
  const ledgers = { ethdev: { rpcUrl: anvil.url, confirmations: 1 } };
  const env = (extra: Record<string, string>): Record<string, string> => ({
    HOST: '127.0.0.1',
    SANDBOX: 'false',
    NODE_BACKEND: 'js',
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: o.prefix,
    LOG_LEVEL: 'info',
    LEDGERS: JSON.stringify(ledgers),
    API_KEYS: JSON.stringify([{ name: 'faults', key: API_KEY, scopes: ['read', 'withdraw', 'admin'] }]),
    CUSTODY_URL: custody.url,
    CALLBACK_SECRET: SECRET,
    IN_PROCESS_WORKER: 'false',
    CONFIRM_POLL_MS: '500',
    JOB_LOCK_MS: '3000',
    RECONCILE_AFTER_SECONDS: '5',
    RECONCILE_INTERVAL_SECONDS: '2',
    // A POST whose API process was killed holds its Idempotency-Key this long; the client retries past it.
    IDEMPOTENCY_CLAIM_SECONDS: '15',
    ...o.env,
    ...extra,
  });
  const stack: Stack = {
    anvil,
    funder,
    custody,
    apis: [],
    workers: [],
    ledgers,
    startApi: async (i) => {
      const port = ports[i] as number;
      const url = `http://127.0.0.1:${port}`;
      const p = Object.assign(startNode(`${o.name}-api${i}`, 'src/main.ts', env({ PORT: String(port), PUBLIC_URL: url })), { url });
      stack.apis[i] = p;
      await waitUntil(`${p.name} start`, async () => (await fetch(`${url}/api/v1.0/config`)).ok, START_TIMEOUT_MS, p);
    },
    startWorker: async (i) => {
      const p = startNode(`${o.name}-worker${i}`, 'src/worker-main.ts', env({ WORKER_PORT: String(await freePort()) }));
      stack.workers[i] = p;
      await waitUntil(`${p.name} start`, () => readFileSync(p.log, 'utf8').includes('worker started'), START_TIMEOUT_MS, p);
    },
    stop: async () => {
      await Promise.all([...stack.apis, ...stack.workers].map((p) => p?.kill('SIGTERM')));
      await custody.stop();
      funder.destroy();
      await anvil.stop();
    },
  };
  try {
    await Promise.all([...Array.from({ length: o.apis }, (_, i) => stack.startApi(i)), ...Array.from({ length: o.workers }, (_, i) => stack.startWorker(i))]);
  } catch (e) {
    await stack.stop();
    throw e;
  }
  return stack;
}
