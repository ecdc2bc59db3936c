import type { Server } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { LocalNodeMining } from '../../src/ledger/adaptor.js';
import { sandboxRoutes } from '../../src/dev/sandbox/sandbox-routes.js';
import type { Sandbox } from '../../src/dev/sandbox/sandbox.js';
import { createCore } from '../../src/app/core.js';
import { listen } from '../../src/app/processes.js';
import { ADMIN_KEY, httpCaller } from '../helpers/service.js';
import { testRedis } from '../helpers/redis.js';

const READ_KEY = 'read-only-key-of-the-mining-route-test-0001';

/**
 * POST /sandbox/mining does what the ledger's development node offers (its `mining` hook)
 * and answers 422 naming the supported actions otherwise. The nodes' own controls are tested
 * with each family's local node (adaptors/<family>/local-node/mining.test.ts).
 */
describe('POST /sandbox/mining', () => {
  const { redis, prefix, url: redisUrl } = testRedis();
  let server: Server;
  let call: ReturnType<typeof httpCaller>;
  const calls: string[] = [];
  let paused = false;
  // A node that can only pause and resume.
  const mining: LocalNodeMining = {
    pause: async () => void (calls.push('pause'), (paused = true)),
    resume: async () => void (calls.push('resume'), (paused = false)),
    state: async () => ({ paused, height: 7 }),
  };

  beforeAll(async () => {
    const config = loadConfig(
      {
        PORT: '0',
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix.replace(/:$/, ''),
        LEDGERS: JSON.stringify({ btcregtest: { backend: 'esplora', url: 'http://127.0.0.1:9' }, ethdev: { rpcUrl: 'http://127.0.0.1:9' } }),
        CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
        CUSTODY_API_KEY: 'a-custody-api-key-never-used',
        API_KEYS: JSON.stringify([
          { name: 'admin', key: ADMIN_KEY, scopes: ['admin', 'read', 'withdraw'] },
          { name: 'reader', key: READ_KEY, scopes: ['read'] },
        ]),
      },
      families,
      'test',
    );
    const core = createCore(config, pino({ level: 'silent' }), redis);
    const sandbox = { faucets: {}, mining: { btcregtest: mining } } as unknown as Sandbox;
    server = await listen(core, { routes: sandboxRoutes(core, sandbox) }, {}, 0);
    const address = server.address();
    call = httpCaller(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  });
  afterAll(async () => {
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    redis.disconnect();
  });

  it('pauses and resumes through the node, answering its state and the actions it supports', async () => {
    const r = await call('POST', '/api/v1.0/sandbox/mining', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest', action: 'pause' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ ledgerId: 'btcregtest', action: 'pause', paused: true, height: 7, actions: ['pause', 'resume'] });
    const again = await call('POST', '/api/v1.0/sandbox/mining', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest', action: 'resume' } });
    expect(again.body).toMatchObject({ paused: false });
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('answers 422 naming the supported actions for one the node lacks, and the ledgers with controls for a node without any', async () => {
    const r = await call('POST', '/api/v1.0/sandbox/mining', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest', action: 'reorg', blocks: 2 } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      errCode: 'ERR_INVALID_ARGUMENTS',
      details: "btcregtest supports the mining actions pause, resume, not 'reorg'",
      supported: ['pause', 'resume'],
    });
    const none = await call('POST', '/api/v1.0/sandbox/mining', { key: ADMIN_KEY, body: { ledgerId: 'ethdev', action: 'pause' } });
    expect(none.status).toBe(422);
    expect(none.body.details).toBe("ethdev's development node has no mining controls; ledgers with them: btcregtest (pause, resume)");
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('validates its body and needs the admin scope', async () => {
    for (const body of [
      { ledgerId: 'btcregtest', action: 'stop' },
      { ledgerId: 'btcregtest', action: 'mine', blocks: 0 },
      { ledgerId: 'btcregtest', action: 'mine', blocks: 65 },
    ]) {
      const r = await call('POST', '/api/v1.0/sandbox/mining', { key: ADMIN_KEY, body });
      expect(r.status, JSON.stringify(body)).toBe(422);
    }
    expect((await call('POST', '/api/v1.0/sandbox/mining', { key: READ_KEY, body: { ledgerId: 'btcregtest', action: 'pause' } })).status).toBe(403);
    expect((await call('POST', '/api/v1.0/sandbox/mining', { body: { ledgerId: 'btcregtest', action: 'pause' } })).status).toBe(401);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('is in the OpenAPI document with its body schema', async () => {
    const doc = await call('GET', '/api/v1.0/openapi.json');
    const op = doc.body.paths['/api/v1.0/sandbox/mining']?.post;
    expect(op?.tags).toEqual(['sandbox']);
    expect(JSON.stringify(op.requestBody)).toContain('"reorg"');
  });
});
