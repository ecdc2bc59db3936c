import { Writable } from 'node:stream';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger, MAX_LOGGED_DETAIL } from '../../src/platform/logger.js';
import { createCore } from '../../src/app/core.js';
import { listen } from '../../src/app/processes.js';
import { httpCaller, ADMIN_KEY, TEST_CALLBACK_SECRET } from '../helpers/service.js';
import { testRedis } from '../helpers/redis.js';

/** What hostile callers send must not make the log repeat it at length. */
describe('log lines stay bounded whatever the caller sends', () => {
  const lines: string[] = [];
  const { redis, prefix, url: redisUrl } = testRedis();
  let server: Server;
  let call: ReturnType<typeof httpCaller>;

  beforeAll(async () => {
    const config = loadConfig(
      {
        PORT: '0',
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix.replace(/:$/, ''),
        LEDGERS: JSON.stringify({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }),
        API_KEYS: JSON.stringify([{ name: 'admin', key: ADMIN_KEY, scopes: ['admin', 'read', 'withdraw'] }]),
        CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
        CALLBACK_SECRET: TEST_CALLBACK_SECRET,
      },
      families,
      'test',
    );
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const core = createCore(config, createLogger('info', config.secrets, sink), redis);
    server = await listen(core, {}, {}, 0);
    const address = server.address();
    call = httpCaller(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  });
  afterAll(async () => {
    redis.disconnect();
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a 15 KB invalid field, a 12 KB path and 500 bogus keys each leave log lines of bounded size', async () => {
    const huge = 'x'.repeat(15_000);
    const a = await call('POST', `/api/v1.0/ledgers/ethdev/address-from-publickey`, { key: ADMIN_KEY, body: { publicKeys: [huge] } });
    expect(a.status).toBe(422);
    const b = await call('GET', `/api/v1.0/ledgers/ethdev/addresses/${'y'.repeat(12_000)}/valid`);
    expect(b.status).toBeLessThan(500);
    const keys = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`bogus_field_${i}_${'z'.repeat(20)}`, 1]));
    const c = await call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: keys });
    expect(c.status).toBe(422);
    // Every rejection was logged, and no line repeats more than a bounded part of the input.
    expect(lines.filter((l) => l.includes('request rejected')).length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l.length).toBeLessThan(MAX_LOGGED_DETAIL * 2 + 2_000);
    expect(lines.some((l) => l.includes('more characters'))).toBe(true);
  });
});
