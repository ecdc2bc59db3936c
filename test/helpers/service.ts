import type { Server } from 'node:http';
import pino, { type Logger } from 'pino';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { AppExtensions } from '../../src/http/app.js';
import type { AppContext } from '../../src/http/app-context.js';
import type { Workers } from '../../src/withdrawals/jobs/workers.js';
import { redisClient } from '../../src/platform/redis.js';
import { createCore, type Core } from '../../src/app/core.js';
import { createPipeline, listen, type Pipeline } from '../../src/app/processes.js';
import { testRedis } from './redis.js';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef0123';
export const READ_KEY = 'test-read-key-0123456789abcdef01234';
export const WITHDRAW_KEY = 'test-withdraw-key-0123456789abcdef0';
export const TEST_CALLBACK_SECRET = 'test-callback-secret-0123456789';
/** The test service's API keys: one of each kind; a test that needs more (a key limited to vaults) adds to them. */
export const TEST_API_KEYS = [
  { name: 'admin', key: ADMIN_KEY, scopes: ['admin', 'read', 'withdraw'] },
  { name: 'reader', key: READ_KEY, scopes: ['read'] },
  { name: 'withdrawer', key: WITHDRAW_KEY, scopes: ['withdraw', 'read'] },
];

export interface TestService {
  url: string;
  core: Core;
  pipeline?: Pipeline;
  workers?: Workers;
  /** fetch against the service with an optional API key; JSON in, JSON out. */
  call(
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/** `TestService.call` for a service at `url`. */
export function httpCaller(url: string): TestService['call'] {
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    } else if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
}

/** The real service (real Redis, real configured ledgers) on a free port, with its own key prefix. */
export async function startTestService(
  ledgers: Record<string, unknown>,
  opts: {
    env?: Record<string, string>;
    ext?: AppExtensions;
    healthChecks?: AppContext['healthChecks'];
    /** Serve withdrawals and the callback receiver (needs CUSTODY_URL in env). */
    pipeline?: boolean;
    /** Also run the queue workers in this process. */
    workers?: boolean;
    /** Listen on this port (the custody emulator may already know where to call back). */
    port?: number;
    /** Where the service logs (silent when absent). */
    logger?: Logger;
  } = {},
): Promise<TestService> {
  const { redis, prefix, url: redisUrl } = testRedis();
  const config = loadConfig(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix.replace(/:$/, ''),
      LEDGERS: JSON.stringify(ledgers),
      API_KEYS: JSON.stringify(TEST_API_KEYS),
      CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
      CALLBACK_SECRET: TEST_CALLBACK_SECRET,
      ...opts.env,
    },
    families,
    'test',
  );
  // A test on another Redis (a cluster) names it in env; its client is made the way the service makes one.
  const client = opts.env?.REDIS_URL ? redisClient(opts.env.REDIS_URL, { maxRetriesPerRequest: null }) : redis;
  if (client !== redis) redis.disconnect();
  const core = createCore(config, opts.logger ?? pino({ level: 'silent' }), client);
  const pipeline = opts.pipeline ? createPipeline(core) : undefined;
  const ext: AppExtensions = pipeline ? { routes: pipeline.routes, mount: pipeline.mount, ...opts.ext } : (opts.ext ?? {});
  const health = pipeline ? { custody: () => pipeline.deps.custody.health(), ...pipeline.deposits.healthChecks(), ...opts.healthChecks } : opts.healthChecks;
  const server: Server = await listen(core, ext, health, opts.port ?? 0);
  const workers = opts.workers && pipeline ? await pipeline.startWorkers() : undefined;
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    core,
    pipeline,
    workers,
    call: httpCaller(url),
    stop: async () => {
      await workers?.close();
      await pipeline?.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      client.disconnect();
    },
  };
}
