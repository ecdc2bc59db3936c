import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { freePort } from '../../src/dev/free-port.js';
import { SANDBOX_DIR, startSandbox, type Sandbox } from '../../src/dev/sandbox/sandbox.js';

/**
 * The sandbox takes its variables from the validated configuration, as a real start does: the
 * same variables in the process environment and in what `loadConfig` read.
 */
describe('the sandbox started with SANDBOX_API_KEY empty and SANDBOX_CUSTODY_PORT set', () => {
  const cwd = process.cwd();
  const saved = { ...process.env };
  let sandbox: Sandbox | undefined;
  let custodyPort: number;

  beforeAll(async () => {
    // The sandbox writes .sandbox/ under the working directory.
    process.chdir(mkdtempSync(path.join(tmpdir(), 'byow-sandbox-env-')));
    custodyPort = await freePort();
    const env = {
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: `${inject('runPrefix')}sandbox-env`,
      PORT: '0',
      LOG_LEVEL: 'silent',
      SANDBOX_API_KEY: '',
      SANDBOX_CUSTODY_PORT: String(custodyPort),
    };
    Object.assign(process.env, env);
    sandbox = await startSandbox(loadConfig(env, families, 'v'), families, () => undefined);
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
    process.chdir(cwd);
    for (const name of ['REDIS_URL', 'REDIS_PREFIX', 'PORT', 'LOG_LEVEL', 'SANDBOX_API_KEY', 'SANDBOX_CUSTODY_PORT']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('gets a random API key, as when unset (empty counts as unset)', () => {
    const [key] = sandbox!.config.apiKeys ?? [];
    expect(key?.key).toMatch(/^sbx_[0-9a-f]{48}$/);
    expect(readFileSync(path.join(SANDBOX_DIR, 'api-key'), 'utf8').trim()).toBe(key?.key);
    expect(sandbox!.banner.join('\n')).toContain(`API key (all scopes): ${key?.key}`);
  });

  it('runs its custody emulator on SANDBOX_CUSTODY_PORT', () => {
    expect(sandbox!.custody.running.url).toContain(`:${custodyPort}/`);
  });
});
