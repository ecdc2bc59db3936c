import type { Server } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { sandboxRoutes } from '../../src/sandbox/sandbox-routes.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { createCore, listen } from '../../src/service.js';
import { ADMIN_KEY, TEST_CALLBACK_SECRET, httpCaller } from '../helpers/service.js';
import { testRedis } from '../helpers/redis.js';

/** The sandbox's vault shortcut checks its input before the custody side makes a key. */
describe('POST /sandbox/vaults', () => {
  const { redis, prefix, url: redisUrl } = testRedis();
  const created: string[] = [];
  let server: Server;
  let call: ReturnType<typeof httpCaller>;

  beforeAll(async () => {
    const config = loadConfig(
      {
        PORT: '0',
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix.replace(/:$/, ''),
        LEDGERS: JSON.stringify({ btcregtest: { backend: 'esplora', url: 'http://127.0.0.1:9' } }),
        API_KEYS: JSON.stringify([{ name: 'admin', key: ADMIN_KEY, scopes: ['admin', 'read', 'withdraw'] }]),
        CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
        CALLBACK_SECRET: TEST_CALLBACK_SECRET,
      },
      families,
      'test',
    );
    const core = createCore(config, pino({ level: 'silent' }), redis);
    // The custody side is observed, not simulated in full: the route's only effect there is createVault.
    const sandbox = {
      faucets: {},
      custody: {
        sim: {
          createVault: () => {
            const vaultId = `v${created.length}`;
            created.push(vaultId);
            return { vaultId, publicKey: '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798' };
          },
        },
      },
    } as unknown as Sandbox;
    server = await listen(core, { routes: sandboxRoutes(core, sandbox) }, {}, 0);
    const address = server.address();
    call = httpCaller(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  });
  afterAll(async () => {
    redis.disconnect();
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('refuses an unknown addressFormat with the valid values, and no custody key is made', async () => {
    const r = await call('POST', '/api/v1.0/sandbox/vaults', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest', addressFormat: 'p2wsh' } });
    expect(r.status).toBe(422);
    expect(r.body.details).toContain('p2wpkh, p2sh-p2wpkh, p2pkh');
    expect(created).toEqual([]);
  });

  it('registers a vault in a valid format', async () => {
    const r = await call('POST', '/api/v1.0/sandbox/vaults', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest', addressFormat: 'p2pkh' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.address).toMatch(/^[mn]/);
    expect(created).toEqual(['v0']);
  });
});
