import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { freePort } from '../../src/dev/free-port.js';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';
import { sandboxLogFormat } from '../../src/dev/sandbox/sandbox-log.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RULE = /^═{20,}$/;

interface Run {
  stdout: string;
  stderr: string;
}

/**
 * Resolves once `done()` holds, checked at each chunk the child writes; rejects with `output()`
 * if the child exits first or `deadline` (epoch ms) passes.
 */
function untilOutput(child: ChildProcess, done: () => boolean, deadline: number, what: string, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done()) return;
      settle();
      resolve();
    };
    const exited = () => {
      settle();
      reject(new Error(`the sandbox exited before printing its ${what}:\n${output()}`));
    };
    const timer = setTimeout(() => {
      settle();
      reject(new Error(`the sandbox printed no ${what} in time:\n${output()}`));
    }, deadline - Date.now());
    const settle = () => {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.stderr!.off('data', check);
      child.off('exit', exited);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', exited);
    check();
  });
}

/**
 * Waits for the first round of the workers the start set going: the reconciliation pass and a
 * deposit scan of every ledger, the last of the start's work (all the rest is done before the
 * banner). Read from GET /metrics, which the service answers without a request log line, so the
 * output stays the start's own.
 */
async function untilWorkersRan(port: number, ledgers: readonly string[], deadline: number): Promise<void> {
  for (;;) {
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    const scanned = ledgers.every((l) => metrics.includes(`byow_deposit_scanner_lag{ledger="${l}",unit="blocks"}`));
    if (scanned && /byow_queue_jobs\{queue="reconcile",state="completed"\} [1-9]/.test(metrics)) return;
    if (Date.now() > deadline)
      throw new Error(`the workers did not run their first round (deposit scans of ${ledgers.join(', ')}, reconciliation):\n${metrics}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `npm start` (the sandbox) with LOG_FORMAT set, stdout and stderr kept apart; stopped once the
 * banner is out and the workers it started have run their first round (no request is logged:
 * every line is from the start-up).
 */
async function sandboxOutput(format: 'json' | 'pretty', redisUrl: string, prefix: string): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'byow-sandbox-logs-'));
  const [port, custodyPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/main.ts')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      PORT: String(port),
      SANDBOX_CUSTODY_PORT: String(custodyPort),
      LOG_FORMAT: format,
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const run: Run = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (run.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (run.stderr += d.toString()));
  try {
    const deadline = Date.now() + 150_000;
    // The banner whole (its closing rule after the API line), and the line before it that names the ledgers.
    const banner = () => /^ {2}API {9}http:\/\/127\.0\.0\.1:.*\n═+\n/m.test(format === 'pretty' ? run.stdout : run.stderr);
    await untilOutput(
      child,
      () => banner() && run.stdout.includes('"ledgers":['),
      deadline,
      'banner',
      () => `${run.stdout}\n${run.stderr}`,
    );
    const ledgers = JSON.parse(/"ledgers":(\[[^\]]*\])/.exec(run.stdout)?.[1] ?? '[]') as string[];
    expect(ledgers.length, run.stdout).toBeGreaterThan(0);
    await untilWorkersRan(port, ledgers, deadline);
    // What it printed until now: not the shutdown's line.
    return { ...run };
  } finally {
    await new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      process.kill(-child.pid!, 'SIGTERM');
    });
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the sandbox logs for people, or as JSON', { timeout: 200_000 }, () => {
  const redisUrl = inject('redisUrl');
  const prefix = `test-sandbox-logs-${randomUUID()}`;
  afterAll(async () => {
    const redis = new Redis(redisUrl);
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it('pretty: one readable line per event, no raw JSON, and the framed banner last', async () => {
    const { stdout } = await sandboxOutput('pretty', redisUrl, prefix);
    const lines = stdout.split('\n').filter((l) => l.trim() !== '');
    expect(
      lines.filter((l) => l.trimStart().startsWith('{')),
      stdout,
    ).toEqual([]);
    expect(
      lines.some((l) => /^\[[\d:.]+\] INFO: listening \{/.test(l)),
      stdout,
    ).toBe(true);
    // The banner: between two rules, the last block of what the start printed.
    const rules = lines.flatMap((l, i) => (RULE.test(l) ? [i] : []));
    expect(rules.length, stdout).toBe(2);
    expect(rules[1], stdout).toBe(lines.length - 1);
    const banner = lines.slice(rules[0]! + 1, rules[1]);
    expect(banner[0]).toContain('SANDBOX profile');
    expect(banner.at(-1)).toMatch(/^ {2}API {9}http:\/\/127\.0\.0\.1:\d+\/api\/v1\.0/);
    expect(banner.some((l) => l.includes('API key (all scopes): sbx_'))).toBe(true);
  });

  it('json: stdout is one JSON object per line; the banner goes to stderr', async () => {
    const { stdout, stderr } = await sandboxOutput('json', redisUrl, prefix);
    const lines = stdout.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length, stdout).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain('listening');
    expect(stderr).toContain('SANDBOX profile');
    expect(stderr).toMatch(/ {2}API {9}http:\/\/127\.0\.0\.1:\d+\/api\/v1\.0/);
  });
});

describe('LOG_FORMAT', () => {
  it('unset: pretty in the sandbox on a terminal, JSON when stdout is not one; set: as said', () => {
    expect(sandboxLogFormat(undefined, true)).toBe('pretty');
    expect(sandboxLogFormat(undefined, false)).toBe('json');
    expect(sandboxLogFormat('json', true)).toBe('json');
    expect(sandboxLogFormat('pretty', false)).toBe('pretty');
  });

  it('pretty is refused outside the sandbox profile, whose production image has no pino-pretty', () => {
    const production = {
      LEDGERS: JSON.stringify({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }),
      API_KEYS: JSON.stringify([{ name: 'k', sha256: 'a'.repeat(64), scopes: ['read'] }]),
      CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
      CUSTODY_API_KEY: 'a-custody-api-key-never-used',
    };
    expect(() => loadConfig({ ...production, LOG_FORMAT: 'pretty' }, families, 'v')).toThrow(/LOG_FORMAT=pretty is for the sandbox profile only/);
    expect(loadConfig({ ...production, LOG_FORMAT: 'json' }, families, 'v').logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }, families, 'v').logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'text' }, families, 'v')).toThrow(/LOG_FORMAT/);
  });
});
