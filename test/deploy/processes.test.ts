import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCustodySimulator, type RunningCustodySimulator } from '../../src/custody-simulator/index.js';
import { DevChainFunder } from '../../src/sandbox/dev-chain.js';
import { freePort } from '../../src/sandbox/free-port.js';
import { startAnvil, type LocalAnvil } from '../../src/sandbox/local-anvil.js';
import { testRedis } from '../helpers/redis.js';
import { loadCompose } from './compose.js';

/**
 * The production shape, process by process: `src/main.ts` (API) and `src/worker-main.ts`
 * (worker) as child processes with an explicit LEDGERS (a plain local anvil, so
 * `confirmations: 1`), the custody side on its own port, one Redis. Nothing in-process but the
 * custody side and the node.
 */
const { redis, prefix, url: redisUrl } = testRedis();
const API_KEY = randomBytes(24).toString('hex');
const CALLBACK_SECRET = randomBytes(32).toString('hex');
const CUSTODY_API_KEY = randomBytes(16).toString('hex');

let anvil: LocalAnvil;
let custody: RunningCustodySimulator;
let env: Record<string, string>;
const children: ChildProcess[] = [];
const output: string[] = [];

function start(entry: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => output.push(`${entry}: ${d.toString()}`));
  child.stderr?.on('data', (d: Buffer) => output.push(`${entry}: ${d.toString()}`));
  children.push(child);
  return child;
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** Polls `probe` until it returns a value, failing with what the processes printed. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    for (const c of children) if (c.exitCode !== null) throw new Error(`a process exited (${c.exitCode}) while waiting for ${what}:\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}:\n${output.join('')}`);
}

/** Runs `node -e <script>` as a container healthcheck would; resolves with its exit code. */
function healthcheck(script: string, extra: Record<string, string>): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...extra }, stdio: 'ignore' });
    child.on('exit', (code) => resolve(code));
  });
}

// Child processes compile TypeScript at start: generous time on a loaded machine.
describe('the API and the worker as their own processes', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    anvil = await startAnvil();
    const [port, workerPort] = [await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${port}`;
    // The custody side; the emulator's own command takes its place once it exists.
    custody = await startCustodySimulator({ secret: CALLBACK_SECRET, callbackBaseUrl: publicUrl, apiKey: CUSTODY_API_KEY, quorum: { approvers: 2, required: 2, approvalDelayMs: 50 } });
    env = {
      SANDBOX: 'false',
      HOST: '127.0.0.1',
      PORT: String(port),
      WORKER_PORT: String(workerPort),
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `${prefix}deploy`,
      LOG_LEVEL: 'warn',
      LEDGERS: JSON.stringify({ ethdev: { rpcUrl: anvil.url, confirmations: 1 } }),
      API_KEYS: JSON.stringify([{ name: 'ops', key: API_KEY, scopes: ['read', 'withdraw', 'admin'] }]),
      CUSTODY_URL: custody.url,
      CUSTODY_API_KEY,
      CALLBACK_SECRET,
      PUBLIC_URL: publicUrl,
      CONFIRM_POLL_MS: '500',
    };
    start('src/main.ts');
    start('src/worker-main.ts');
  });

  afterAll(async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGTERM');
          }),
      ),
    );
    await custody?.stop();
    await anvil?.stop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('both report healthy on /status', async () => {
    const api = await until('the API healthy', async () => {
      const res = await json(`http://127.0.0.1:${env.PORT}/api/v1.0/status`);
      return res.body?.healthy ? res.body : undefined;
    });
    expect(api).toMatchObject({ healthy: true, redis: { healthy: true }, ledgers: { ethdev: { healthy: true } }, dependencies: { custody: { healthy: true } } });
    const worker = await until('the worker healthy', async () => {
      const res = await json(`http://127.0.0.1:${env.WORKER_PORT}/status`);
      return res.status === 200 ? res.body : undefined;
    });
    expect(worker).toMatchObject({ healthy: true, redis: { healthy: true }, workers: { healthy: true } });
    expect(await (await fetch(`http://127.0.0.1:${env.WORKER_PORT}/metrics`)).text()).toContain('byow_queue_jobs');
    expect(await redis.get(`${prefix}deploy:profile`)).toBe('production');
  });

  it("passes docker-compose.yml's and the image's healthchecks", async () => {
    const { services } = loadCompose();
    const script = (svc: string) => services[svc]!.healthcheck!.test.at(-1)!;
    expect(await healthcheck(script('api'), { PORT: env.PORT! })).toBe(0);
    expect(await healthcheck(script('worker'), { WORKER_PORT: env.WORKER_PORT! })).toBe(0);
    // Pointed at each other's port, each check fails: the worker serves no API status.
    expect(await healthcheck(script('api'), { PORT: env.WORKER_PORT! })).toBe(1);
    const image = /HEALTHCHECK[^\n]*\\\n\s*CMD node -e "(.*)"\n/.exec(readFileSync('Dockerfile', 'utf8'))?.[1];
    expect(image).toBeDefined();
    expect(await healthcheck(image!, { PORT: env.PORT! })).toBe(0);
    expect(await healthcheck(image!, { HEALTHCHECK_URL: `http://127.0.0.1:${env.WORKER_PORT}/status` })).toBe(0);
    expect(await healthcheck(image!, { PORT: env.WORKER_PORT! })).toBe(1);
  });

  it('takes a withdrawal to CONFIRMED: API, custody signing, callback, worker broadcast, one confirmation', async () => {
    const api = `http://127.0.0.1:${env.PORT}/api/v1.0`;
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const vault = custody.sim.createVault('ECDSA', { ledger: 'ethdev' });
    const registered = await json(`${api}/admin/vaults`, { method: 'POST', headers, body: JSON.stringify({ vaultId: vault.vaultId, ledgerId: 'ethdev', publicKey: vault.publicKey }) });
    expect(registered.status).toBe(201);
    const address = registered.body.address as string;
    const funder = new DevChainFunder(anvil.url);
    await funder.sendEth(address, 10n ** 18n);
    funder.destroy();

    const created = await json(`${api}/vaults/${vault.vaultId}/withdrawals`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ recipientAddress: '0x00000000000000000000000000000000000000A1', amount: '0.25', description: 'deploy' }),
    });
    expect(created.status).toBe(200);
    const id = created.body.operationID as string;
    const done = await until('the withdrawal to finish', async () => {
      const res = await json(`${api}/vaults/${vault.vaultId}/withdrawals/${id}`, { headers });
      return res.body?.isComplete ? res.body : undefined;
    });
    expect(done).toMatchObject({ status: 'CONFIRMED', isComplete: true });
    const balance = await json(`${api}/ledgers/ethdev/addresses/0x00000000000000000000000000000000000000A1/balance`, { headers });
    expect(balance.body.balances).toEqual([{ asset: 'ETH', amount: '0.25' }]);
  });
});
