import type { Server } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { sandboxRoutes } from '../../src/dev/sandbox/sandbox-routes.js';
import type { Sandbox } from '../../src/dev/sandbox/sandbox.js';
import { startSandboxCustody, type SandboxCustody } from '../../src/dev/sandbox/sandbox-custody.js';
import { createCore } from '../../src/app/core.js';
import { listen } from '../../src/app/processes.js';
import { CUSTODY_EMULATOR_PREFIX } from '../../src/platform/redis-keys.js';
import { ADMIN_KEY, httpCaller } from '../helpers/service.js';
import { testRedis } from '../helpers/redis.js';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';

const ADMIN = { user: 'so', password: 'sandbox-custody-password' };

/**
 * The sandbox's vault shortcut checks its input before the custody side makes a key, then
 * creates an initialized 2-of-3 vault in the custody emulator and registers it by id.
 */
describe('POST /sandbox/vaults', () => {
  const { redis, prefix, url: redisUrl } = testRedis();
  let custody: SandboxCustody;
  let server: Server;
  let call: ReturnType<typeof httpCaller>;
  const emulatorVaults = async () =>
    custody.running.emulator.ctx.store.list<{ id: string; status: string; groups: { requiredApprovals: number; members: unknown[] }[] }>('vault');

  beforeAll(async () => {
    custody = await startSandboxCustody({
      redisUrl,
      prefix: `${prefix}${CUSTODY_EMULATOR_PREFIX}`,
      port: 0,
      admin: ADMIN,
      callback: { baseUrl: 'http://127.0.0.1:9' },
      logger: pino({ level: 'silent' }),
    });
    const config = loadConfig(
      {
        PORT: '0',
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix.replace(/:$/, ''),
        LEDGERS: JSON.stringify({ btcregtest: { backend: 'esplora', url: 'http://127.0.0.1:9' } }),
        API_KEYS: JSON.stringify([{ name: 'admin', key: ADMIN_KEY, scopes: ['admin', 'read', 'withdraw'] }]),
        CUSTODY_URL: custody.running.url,
        CUSTODY_USER: ADMIN.user,
        CUSTODY_PASSWORD: ADMIN.password,
      },
      families,
      'test',
    );
    const core = createCore(config, pino({ level: 'silent' }), redis);
    const sandbox = { faucets: {}, custody } as unknown as Sandbox;
    server = await listen(core, { routes: sandboxRoutes(core, sandbox) }, {}, 0);
    const address = server.address();
    call = httpCaller(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  });
  afterAll(async () => {
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    await custody?.stop();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it('refuses an unknown addressFormat with the valid values, and no custody key is made', async () => {
    const r = await call('POST', '/api/v1.0/sandbox/vaults', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest', addressFormat: 'p2wsh' } });
    expect(r.status).toBe(422);
    expect(r.body.details).toContain('p2wpkh, p2sh-p2wpkh, p2pkh');
    expect(await emulatorVaults()).toEqual([]);
  });

  it('vaults requested at once (the first ones, in the same millisecond) share one account and its three participants', async () => {
    // One frozen clock: the vaults' names must not collide in the custody account.
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now);
    const results = await Promise.all(
      [0, 1, 2].map(() => call('POST', '/api/v1.0/sandbox/vaults', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest' } })),
    ).finally(() => clock.mockRestore());
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const vaults = await emulatorVaults();
    expect(vaults).toHaveLength(3);
    expect(vaults.every((v) => v.status === 'INITIALIZED')).toBe(true);
    expect(await custody.running.emulator.ctx.store.list('account')).toHaveLength(1);
    expect(await custody.running.emulator.ctx.store.list('participant')).toHaveLength(3);
  });

  it('registers a vault in a valid format: initialized 2-of-3 in the emulator, registered here by id', async () => {
    const r = await call('POST', '/api/v1.0/sandbox/vaults', { key: ADMIN_KEY, body: { ledgerId: 'btcregtest', addressFormat: 'p2pkh' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.address).toMatch(/^[mn]/);
    const vault = (await emulatorVaults()).find((v) => v.id === r.body.vaultId);
    expect(vault).toMatchObject({ id: r.body.vaultId, status: 'INITIALIZED' });
    expect(vault!.groups).toMatchObject([{ requiredApprovals: 2, members: [{}, {}, {}] }]);
    const registered = await call('GET', `/api/v1.0/admin/vaults/${r.body.vaultId}`, { key: ADMIN_KEY });
    expect(registered.body).toMatchObject({ vaultId: r.body.vaultId, kind: 'single', publicKey: r.body.publicKey, address: r.body.address });
  });
});
