/** A real worker process (`src/worker-main.ts`) that stops for good at broadcast, for crash tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/dev/free-port.js';
import type { Loop } from '../helpers/loop.js';
import { TEST_CALLBACK_SECRET } from '../helpers/service.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PRELOAD = path.join(ROOT, 'test/pipeline/fixtures/hang-at-broadcast.ts');

export interface HangingWorker {
  proc: ChildProcess;
  /** Resolves once `n` sends reached their planned moment: `sent`, `held` or `waits` each. */
  hangs(n: number): Promise<string[]>;
  /** Resolves once the process wrote `text` on stdout (its log); rejects if it exits first. */
  says(text: string): Promise<void>;
}

/**
 * Starts the worker on the loop's Redis prefix with `plan` (see fixtures/hang-at-broadcast.ts);
 * resolves once it says it started. The caller SIGKILLs it.
 */
export async function spawnHangingWorker(loop: Loop, ledgers: Record<string, unknown>, plan: string[]): Promise<HangingWorker> {
  const config = loop.svc.core.config;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', PRELOAD, path.join(ROOT, 'src/worker-main.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      NODE_BACKEND: 'js',
      SANDBOX: 'false',
      LOG_LEVEL: 'info',
      REDIS_URL: config.redisUrl,
      REDIS_PREFIX: config.keyPrefix,
      WORKER_PORT: String(await freePort()),
      LEDGERS: JSON.stringify(ledgers),
      API_KEYS: JSON.stringify([{ name: 'unused', key: 'unused-key-0123456789abcdef0123456789', scopes: ['read'] }]),
      CUSTODY_URL: loop.custody.url,
      CALLBACK_SECRET: TEST_CALLBACK_SECRET,
      JOB_LOCK_MS: '2000',
      CONFIRM_POLL_MS: '100',
      HANG_AT_BROADCAST: plan.join(','),
    },
  });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  });
  const when = <T>(test: () => T | undefined) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const v = test();
        if (v !== undefined) resolve(v);
      };
      waiters.push(check);
      proc.once('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}): ${err}${out}`)));
      check();
    });
  const timeout = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  try {
    await when(() => (out.includes('worker started') ? true : undefined));
  } finally {
    clearTimeout(timeout);
  }
  const hangs = (n: number) =>
    when(() => {
      const seen = [...out.matchAll(/HANG-AT-BROADCAST (\w+)/g)].map((m) => m[1] as string);
      return seen.length >= n ? seen : undefined;
    });
  const says = async (text: string) => void (await when(() => (out.includes(text) ? true : undefined)));
  return { proc, hangs, says };
}
