import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { ENV } from '../../src/config/env-spec.js';
import { ConfigError } from '../../src/platform/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { callbackUrl } from '../../src/dev/custody-emulator/callback.js';
import { emulatorEnv } from '../../src/dev/custody-emulator/env.js';
import { InterpolationError, loadCompose, parseDotenv, serviceEnv } from './compose.js';

const exampleText = readFileSync('.env.example', 'utf8');
const example = parseDotenv(exampleText);
const compose = loadCompose();
const { api, worker } = compose.services as Required<typeof compose.services>;

/** The secrets .env.example leaves for the operator, filled in as its comments say. */
function secrets(): Record<string, string> {
  const key = randomBytes(24).toString('hex');
  return {
    API_KEYS: JSON.stringify([{ name: 'ops', sha256: createHash('sha256').update(key).digest('hex'), scopes: ['read', 'withdraw', 'admin'] }]),
    CALLBACK_SECRET: randomBytes(32).toString('hex'),
    CUSTODY_API_KEY: randomBytes(16).toString('hex'),
  };
}

const check = (env: Record<string, string>) => loadConfig(env, families, 'test');

describe('docker-compose.yml with .env.example', () => {
  it('refuses to start until API_KEYS is filled in', () => {
    for (const svc of [api!, worker!]) {
      expect(() => serviceEnv(svc, example)).toThrow(InterpolationError);
      const filled = { ...example, ...secrets() };
      for (const name of ['API_KEYS']) {
        expect(() => serviceEnv(svc, { ...filled, [name]: '' })).toThrow(new RegExp(`${name} is missing a value: set ${name} in .env`));
      }
    }
  });

  it('gives the API and the worker a configuration that passes the real check', () => {
    const vars = { ...example, ...secrets() };
    for (const [svc, entry] of [
      [api!, 'dist/src/main.js'],
      [worker!, 'dist/src/worker-main.js'],
    ] as const) {
      expect(svc.command).toEqual(['node', entry]);
      const config = check(serviceEnv(svc, vars));
      expect(config.sandboxProfile).toBe(false);
      expect(config.ledgerConfigs.map((l) => `${l.ledgerId}:${l.family.family}`)).toEqual(['ethtest:ethereum', 'btctest:bitcoin', 'stellartest:stellar']);
      expect(config.redisUrl).toBe('redis://redis:6379');
      expect(config.keyPrefix).toBe('byow');
      expect([config.port, config.workerPort]).toEqual([8080, 8081]);
      expect(config.custodyUrl).toBe(example.CUSTODY_URL);
      expect(config.callbackSecret).toBe(vars.CALLBACK_SECRET);
      expect(config.apiKeys?.[0]?.scopes).toEqual(['read', 'withdraw', 'admin']);
    }
  });

  it('passes a mistake in .env on to the check, which names it', () => {
    const vars = { ...example, ...secrets(), LEDGERS: '{"ethtest":{"rpcUrl":"https://node.example","confirmation":1}}', PORT: 'abc' };
    const error = (() => {
      try {
        check(serviceEnv(worker!, vars));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      "PORT: must be a whole number from 0 to 65535, got 'abc'",
      expect.stringMatching(/^LEDGERS\.ethtest: unknown option 'confirmation' \(did you mean 'confirmations'\?\)\. Valid options: rpcUrl, /),
    ]);
  });

  it('lists every configuration variable in .env.example, under a comment, and passes it to both processes', () => {
    const lines = exampleText.split('\n');
    // SANDBOX is not the operator's choice here: compose sets it to false, so the sandbox
    // profile's own variables (SANDBOX_API_KEY, SANDBOX_CUSTODY_*) do not apply either.
    const names = Object.values(ENV)
      .map((e) => e.env)
      .filter((n) => !/^SANDBOX(_|$)/.test(n));
    for (const name of names) {
      const at = lines.findIndex((l) => l.startsWith(`${name}=`));
      expect(at, `${name} in .env.example`).toBeGreaterThan(0);
      let above = at - 1;
      while (above > 0 && /^[A-Z_]+=/.test(lines[above]!)) above--;
      expect(lines[above], `comment above ${name}`).toMatch(/^# /);
      expect(Object.keys(api!.environment ?? {}), `api gets ${name}`).toContain(name);
      expect(Object.keys(worker!.environment ?? {}), `worker gets ${name}`).toContain(name);
    }
    expect(api!.environment?.SANDBOX).toBe('false');
    expect(worker!.environment?.SANDBOX).toBe('false');
  });

  it("checks the worker's own /status on WORKER_PORT, the API's /api/v1.0/status on PORT", () => {
    const workerCheck = worker!.healthcheck!.test.join(' ');
    expect(workerCheck).toContain("process.env.WORKER_PORT||8081)+'/status'");
    expect(workerCheck).not.toContain('/api/v1.0/status');
    expect(api!.healthcheck!.test.join(' ')).toContain("process.env.PORT||8080)+'/api/v1.0/status'");
    const custody = compose.services['custody-emulator']!;
    expect(custody.profiles).toEqual(['dev']);
    expect(custody.command).toEqual(['npm', 'run', 'custody-emulator']);
  });
});

describe("docker-compose.yml's dev profile with .env.example, filled in as its comments say", () => {
  const emulator = compose.services['custody-emulator']!;
  const password = randomBytes(12).toString('hex');
  /** The custody emulator in place of the custody service: CUSTODY_URL, the login and the emulator's password. */
  const dev = (more: Record<string, string> = {}) => ({
    ...example,
    ...secrets(),
    CUSTODY_API_KEY: '',
    CUSTODY_URL: 'http://custody-emulator:8090/custody/api/v1.0/mng',
    CUSTODY_USER: 'so',
    CUSTODY_PASSWORD: password,
    CUSTODY_EMULATOR_ADMIN_PASSWORD: password,
    ...more,
  });

  it('gives the emulator a configuration its own check takes: it approves by itself, listens for the other containers', () => {
    const e = emulatorEnv.parse(serviceEnv(emulator, dev()));
    expect(e.CUSTODY_EMULATOR_AUTO_APPROVE).toBe('quorum');
    expect(e.CUSTODY_EMULATOR_HOST).toBe('0.0.0.0');
    expect(emulator.profiles).toEqual(['dev']);
  });

  it('the api and the worker reach the emulator and log in as its administrator, on the same Redis', () => {
    const e = emulatorEnv.parse(serviceEnv(emulator, dev()));
    for (const svc of [api!, worker!]) {
      const config = check(serviceEnv(svc, dev()));
      const custody = new URL(config.custodyUrl!);
      expect(custody.hostname).toBe('custody-emulator');
      expect(Number(custody.port)).toBe(e.CUSTODY_EMULATOR_PORT);
      expect([config.custodyUser, config.custodyPassword]).toEqual([e.CUSTODY_EMULATOR_ADMIN_USER, e.CUSTODY_EMULATOR_ADMIN_PASSWORD]);
      expect(config.redisUrl).toBe(e.REDIS_URL);
    }
  });

  it('callbacks reach the api service inside the network: sign requests name no callbackUrl, the emulator calls the api on its PORT', () => {
    for (const port of [undefined, '9000']) {
      const vars = dev(port ? { PORT: port } : {});
      const config = check(serviceEnv(api!, vars));
      // No PUBLIC_URL: sign requests carry no callbackUrl of their own (one would win over the emulator's).
      expect(config.publicUrl).toBeUndefined();
      const e = emulatorEnv.parse(serviceEnv(emulator, vars));
      expect(Object.keys(compose.services)).toContain('api');
      expect(callbackUrl(undefined, e.CUSTODY_EMULATOR_CALLBACK_URL, 'ethtest')).toBe(
        `http://api:${config.port}/api/v1.0/sign_complete_callback?ledgerId=ethtest`,
      );
    }
  });
});
