import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEY } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { freePort } from '../../src/dev/free-port.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { testRedis } from '../helpers/redis.js';
import { loadCompose } from './compose.js';
import { json, Processes, staticPackageImports } from './processes.js';
import { computeAddress } from 'ethers';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';

/**
 * docs/deploying.md, "Without Docker: a walk-through", step by
 * step: the build, a local anvil mining on a timer, the custody emulator started with its own
 * command, the API and the worker as built `dist/` processes with an explicit LEDGERS, a vault
 * created at the custody side and registered here by id, funded, withdrawn to CONFIRMED.
 * The build goes to a temporary folder laid out as the image's /app (package.json,
 * node_modules, dist/), removed afterwards. Beyond the walk-through's commands: free ports, this
 * file's own Redis prefixes, quieter logs and a shorter confirmation poll (CONFIRM_POLL_MS).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const { redis, prefix, url: redisUrl } = testRedis();
const API_KEY = randomBytes(24).toString('hex');
const CALLBACK_SECRET = randomBytes(32).toString('hex');
const CUSTODY = { user: 'so', password: randomBytes(12).toString('hex') };
const RECIPIENT = '0x00000000000000000000000000000000000000A1';
const LONG_RUNNING = ['custody-emulator', 'api', 'worker'];

const procs = new Processes();
const app = mkdtempSync(join(tmpdir(), 'byow-dist-'));
let anvil: LocalAnvil;
let env: Record<string, string>;
let custodyBase: string;
let built: number | null;

describe('the production walk-through: built processes, the custody emulator, a local node', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
    const [port, workerPort, custodyPort] = [await freePort(), await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${port}`;
    custodyBase = `http://127.0.0.1:${custodyPort}`;
    // 0. The build (`npm run build`, into the temporary /app), while the rest starts.
    const build = procs.run(
      'build',
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', join(app, 'dist')],
      {},
      ROOT,
    );
    // 1. A local node that mines a block every second.
    anvil = await startAnvil({ blockTime: 1 });
    // 2. The custody side with its own command.
    procs.start(
      'custody-emulator',
      'npm',
      ['run', '--silent', 'custody-emulator'],
      {
        REDIS_URL: redisUrl,
        CUSTODY_EMULATOR_PORT: String(custodyPort),
        CUSTODY_EMULATOR_REDIS_PREFIX: `${prefix}custody-emulator:`,
        CUSTODY_EMULATOR_ADMIN_USER: CUSTODY.user,
        CUSTODY_EMULATOR_ADMIN_PASSWORD: CUSTODY.password,
        CUSTODY_EMULATOR_CALLBACK_URL: publicUrl,
        CUSTODY_EMULATOR_CALLBACK_SECRET: CALLBACK_SECRET,
        CUSTODY_EMULATOR_AUTO_APPROVE: 'quorum',
        LOG_LEVEL: 'warn',
      },
      { cwd: ROOT, group: true },
    );
    // 3. The API and the worker, one environment for both.
    env = {
      SANDBOX: 'false',
      HOST: '127.0.0.1',
      PORT: String(port),
      WORKER_PORT: String(workerPort),
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `${prefix}byow`,
      LOG_LEVEL: 'warn',
      LEDGERS: JSON.stringify({ ethdev: { rpcUrl: anvil.url, confirmations: 1 } }),
      API_KEYS: JSON.stringify([{ name: 'ops', key: API_KEY, scopes: ['read', 'withdraw', 'admin'] }]),
      CUSTODY_URL: `${custodyBase}/custody/api/v1.0/mng`,
      CUSTODY_USER: CUSTODY.user,
      CUSTODY_PASSWORD: CUSTODY.password,
      CALLBACK_SECRET,
      PUBLIC_URL: publicUrl,
      CONFIRM_POLL_MS: '500',
    };
    built = await build;
    if (built !== 0) throw new Error(`the build failed (${built}):\n${procs.output.join('')}`);
    procs.start('api', process.execPath, ['dist/src/main.js'], env, { cwd: app });
    procs.start('worker', process.execPath, ['dist/src/worker-main.js'], env, { cwd: app });
  }, 180_000);

  afterAll(async () => {
    await procs.stopAll();
    await anvil?.stop();
    rmSync(app, { recursive: true, force: true });
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it('builds entries that load only production dependencies', () => {
    for (const entry of ['main.js', 'worker-main.js', 'dev/custody-emulator/main.js']) expect(existsSync(join(app, 'dist/src', entry)), entry).toBe(true);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const used = staticPackageImports([join(app, 'dist/src/main.js'), join(app, 'dist/src/worker-main.js')]);
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((p) => !(p in manifest.dependencies))).toEqual([]);
  });

  it('all three report healthy', async () => {
    const custody = await procs.until('the custody emulator', LONG_RUNNING, async () => ((await fetch(`${env.CUSTODY_URL}/status`)).ok ? true : undefined));
    expect(custody).toBe(true);
    const api = await procs.until('the API healthy', LONG_RUNNING, async () => {
      const res = await json(`${env.PUBLIC_URL}/api/v1.0/status`);
      return res.body?.healthy ? res.body : undefined;
    });
    expect(api).toMatchObject({
      healthy: true,
      redis: { healthy: true },
      ledgers: { ethdev: { healthy: true } },
      dependencies: { custody: { healthy: true } },
    });
    const worker = await procs.until('the worker healthy', LONG_RUNNING, async () => {
      const res = await json(`http://127.0.0.1:${env.WORKER_PORT}/status`);
      return res.status === 200 ? res.body : undefined;
    });
    expect(worker).toMatchObject({ healthy: true, redis: { healthy: true }, workers: { healthy: true } });
    expect(await (await fetch(`http://127.0.0.1:${env.WORKER_PORT}/metrics`)).text()).toContain('byow_queue_jobs');
    expect(await redis.get(`${prefix}byow:profile`)).toBe('production');
  });

  it('derives address-from-publickey batches in the built derivation threads', async () => {
    // The CASP vector of custody-facts.md: a DER SPKI key and its Ethereum address.
    const key =
      '3056301006072A8648CE3D020106052B8104000A0342000471A50AA19C7907F113A39409C9BB39F612E8A23223CDE454F17F91FCFFA2E56981411D2A6535754E7E0CAC511A3E4B5D7CE8150F316A37F5E2C7EF51183D805C';
    const res = await json(`${env.PUBLIC_URL}/api/v1.0/ledgers/ethdev/address-from-publickey`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ keys: Array.from({ length: 600 }, () => key) }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(new Set(res.body.items.map((i: { address: string }) => i.address))).toEqual(new Set(['0x8240Fd14931292B85C850514c8a4eBd35E56EDA4']));
    // dist/src/app/derive-thread.js loaded: no fallback to the main thread was logged.
    expect(procs.output.join('')).not.toContain('address-derivation thread');
  });

  it("passes docker-compose.yml's and the image's healthchecks", async () => {
    const { services } = loadCompose();
    const script = (svc: string) => services[svc]!.healthcheck!.test.at(-1)!;
    expect(await healthcheck(script('api'), { PORT: env.PORT! })).toBe(0);
    expect(await healthcheck(script('worker'), { WORKER_PORT: env.WORKER_PORT! })).toBe(0);
    // Pointed at each other's port, each check fails: the worker serves no API status.
    expect(await healthcheck(script('api'), { PORT: env.WORKER_PORT! })).toBe(1);
    const image = /HEALTHCHECK[^\n]*\\\n\s*CMD node -e "(.*)"\n/.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(image).toBeDefined();
    expect(await healthcheck(image!, { PORT: env.PORT! })).toBe(0);
    expect(await healthcheck(image!, { HEALTHCHECK_URL: `http://127.0.0.1:${env.WORKER_PORT}/status` })).toBe(0);
    expect(await healthcheck(image!, { PORT: env.WORKER_PORT! })).toBe(1);
  });

  it('takes a withdrawal to CONFIRMED: a vault made at the custody side, registered by id, funded, approved by the policy', async () => {
    // 4. A 2-of-3 vault at the custody side; the automatic policy activates, joins and approves.
    const mng = env.CUSTODY_URL!;
    const basic = `Basic ${Buffer.from(`${CUSTODY.user}:${CUSTODY.password}`).toString('base64')}`;
    const login = await json(`${mng}/auth/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&client_id=cli&scope=%2Fmng',
    });
    expect(login.body?.access_token, JSON.stringify(login.body)).toEqual(expect.any(String));
    const custodyHeaders = { authorization: `Bearer ${login.body.access_token}`, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) => json(`${mng}${path}`, { method: 'POST', headers: custodyHeaders, body: JSON.stringify(body) });
    const account = await post('/accounts', { name: 'treasury' });
    expect(account.status).toBe(201);
    const members: { id: string }[] = [];
    for (const name of ['alice', 'bob', 'carol']) {
      const p = await post(`/accounts/${account.body.id}/participants`, { name, email: `${name}@example.com`, role: 'approver' });
      expect(p.status).toBe(201);
      members.push({ id: p.body.id });
    }
    const vault = await post(`/accounts/${account.body.id}/vaults`, {
      name: 'hot',
      cryptoKind: 'ECDSA',
      groups: [{ name: 'approvers', requiredApprovals: 2, members }],
    });
    expect(vault.status, JSON.stringify(vault.body)).toBe(201);
    const vaultId = vault.body.id as string;
    await procs.until('the vault INITIALIZED', LONG_RUNNING, async () => {
      const v = await json(`${mng}/vaults/${vaultId}`, { headers: custodyHeaders });
      return v.body?.status === 'INITIALIZED' ? true : undefined;
    });

    // 5. Registered here by id: the service reads its key from the custody service.
    const api = `${env.PUBLIC_URL}/api/v1.0`;
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const registered = await json(`${api}/admin/vaults`, { method: 'POST', headers, body: JSON.stringify({ vaultId, ledgerId: 'ethdev' }) });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const address = registered.body.address as string;
    const key = await json(`${mng}/vaults/${vaultId}/publickey`, { headers: custodyHeaders });
    expect(registered.body.publicKey).toBe(key.body.publicKey);

    // 6. Funded from anvil's first development account (unlocked on the node).
    const funder = computeAddress(ANVIL_DEV_KEY);
    const sent = await json(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendTransaction', params: [{ from: funder, to: address, value: '0xde0b6b3a7640000' }] }),
    });
    expect(sent.body.result).toMatch(/^0x[0-9a-f]{64}$/);
    await procs.until('the funds', LONG_RUNNING, async () => {
      const b = await json(`${api}/vaults/${vaultId}/balance`, { headers });
      return b.body?.balances?.[0]?.amount === '1' ? true : undefined;
    });

    // 7. A withdrawal, to CONFIRMED.
    const created = await json(`${api}/vaults/${vaultId}/withdrawals`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ recipientAddress: RECIPIENT, amount: '0.25', description: 'walk-through' }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const done = await procs.until('the withdrawal to finish', LONG_RUNNING, async () => {
      const res = await json(`${api}/vaults/${vaultId}/withdrawals/${created.body.id}`, { headers });
      return res.body?.isComplete ? res.body : undefined;
    });
    expect(done).toMatchObject({ status: 'CONFIRMED', isComplete: true });
    const balance = await json(`${api}/ledgers/ethdev/addresses/${RECIPIENT}/balance`, { headers });
    expect(balance.body.balances).toEqual([{ asset: 'ETH', amount: '0.25' }]);
    // The withdrawal's id is the custody sign operation's: completed there after the policy's approvals.
    expect(created.body.id).toBe(created.body.operationID);
    const op = await json(`${custodyBase}/emulator/v1/operations/${created.body.operationID}`, { headers: { authorization: basic } });
    expect(op.status, JSON.stringify(op.body)).toBe(200);
    expect(op.body.status).toBe('COMPLETED');
  });
});

/** Runs `node -e <script>` as a container healthcheck would; resolves with its exit code. */
function healthcheck(script: string, extra: Record<string, string>): Promise<number | null> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...extra }, stdio: 'ignore' });
    child.on('exit', (code) => done(code));
  });
}
