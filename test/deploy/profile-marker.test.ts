import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/platform/config-error.js';
import { claimProfile } from '../../src/config/profile-marker.js';
import { profileKey } from '../../src/platform/redis-keys.js';
import { freePorts } from '../../src/dev/free-port.js';
import { testRedis } from '../helpers/redis.js';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';

const { redis, prefix, url } = testRedis();

/** Runs an entry point through tsx with exactly `env` (plus PATH); resolves with its exit code and stderr. */
function run(entry: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('sandbox and production never share a key prefix', { timeout: 180_000 }, () => {
  afterAll(async () => {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it('the first start claims a prefix; the same profile may start again, the other may not', async () => {
    const p = `${prefix}a:`;
    await claimProfile(redis, p, 'sandbox');
    expect(await redis.get(profileKey(p))).toBe('sandbox');
    await claimProfile(redis, p, 'sandbox');
    const refused = await claimProfile(redis, p, 'production').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems[0]).toContain(`holds data of the sandbox profile (key ${p}profile); this production start refuses to use it`);
    expect(await redis.get(profileKey(p))).toBe('sandbox');

    const q = `${prefix}b:`;
    await claimProfile(redis, q, 'production');
    await expect(claimProfile(redis, q, 'sandbox')).rejects.toThrow(/holds data of the production profile/);
  });

  it('the API and the worker processes exit 1 with the reason on a prefix of the sandbox', async () => {
    const bare = `${prefix}sbx`;
    await redis.set(profileKey(`${bare}:`), 'sandbox');
    const [apiPort, workerPort] = await freePorts(2);
    const env = {
      REDIS_URL: url,
      REDIS_PREFIX: bare,
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      WORKER_PORT: String(workerPort),
      LOG_LEVEL: 'silent',
      LEDGERS: JSON.stringify({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }),
      API_KEYS: JSON.stringify([{ name: 'k', sha256: 'a'.repeat(64), scopes: ['read'] }]),
      CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
      CALLBACK_SECRET: 'a-callback-secret-of-some-length',
    };
    const [api, worker] = await Promise.all([run('src/main.ts', env), run('src/worker-main.ts', env)]);
    for (const r of [api, worker]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`REDIS_PREFIX '${bare}' holds data of the sandbox profile`);
      expect(r.stderr).toContain('Give this deployment its own prefix (REDIS_PREFIX) or its own Redis database.');
      expect(r.stderr).not.toContain('fatal');
    }
  });

  it('the sandbox refuses a prefix of production data before it writes a key there', async () => {
    const bare = `${prefix}prod`;
    await redis.set(profileKey(`${bare}:`), 'production');
    // No LEDGERS: the sandbox profile, on the production prefix.
    const [apiPort, custodyPort] = await freePorts(2);
    const env = { REDIS_URL: url, REDIS_PREFIX: bare, PORT: String(apiPort), SANDBOX_CUSTODY_PORT: String(custodyPort), LOG_LEVEL: 'silent' };
    const r = await run('src/main.ts', env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`REDIS_PREFIX '${bare}' holds data of the production profile (key ${bare}:profile); this sandbox start refuses to use it.`);
    expect(r.stderr).not.toContain('fatal');
    expect(await redis.keys(`${bare}*`)).toEqual([`${bare}:profile`]);
    expect(await redis.get(`${bare}:profile`)).toBe('production');
  });
});
