/**
 * `npm run client:generate`: starts the API in-process (the routes a production API process
 * serves: wallet layer, withdrawals, callback, dashboard; no ledgers needed, the document does
 * not depend on them), fetches the OpenAPI document it serves, writes it to
 * clients/typescript/openapi.json and the types openapi-typescript makes of it to
 * clients/typescript/src/schema.d.ts.
 *
 * Needs Redis like the tests: REDIS_URL if it answers, else 127.0.0.1:6379, else a throwaway
 * redis-server. It writes no keys there (its prefix is its own and nothing is queued).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import pino from 'pino';
import { families } from '../adaptors/index.js';
import { schemaSource } from '../clients/typescript/scripts/schema-source.js';
import { loadConfig } from '../src/config/load-config.js';
import { ensureRedis } from '../src/dev/local-redis.js';
import { createCore } from '../src/app/core.js';
import { createPipeline, listen } from '../src/app/processes.js';
import { VERSION } from '../src/platform/version.js';

const CLIENT_DIR = new URL('../clients/typescript/', import.meta.url);

async function servedDocument(): Promise<Record<string, unknown>> {
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { log: (m) => console.error(m) });
  const config = loadConfig(
    {
      SANDBOX: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      REDIS_PREFIX: `byow-client-generate-${randomBytes(4).toString('hex')}`,
      // One ledger to satisfy the configuration check; the document does not depend on it and nothing dials it.
      LEDGERS: JSON.stringify({ ethtest: { rpcUrl: 'http://127.0.0.1:9' } }),
      API_KEYS: JSON.stringify([{ name: 'generator', key: randomBytes(24).toString('hex'), scopes: ['read'] }]),
      CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng',
      CALLBACK_SECRET: randomBytes(24).toString('hex'),
    },
    families,
    VERSION,
  );
  const core = createCore(config, pino({ level: 'silent' }));
  const pipeline = createPipeline(core);
  const server = await listen(core, { routes: pipeline.routes, mount: pipeline.mount });
  try {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const res = await fetch(`http://127.0.0.1:${port}/api/v1.0/openapi.json`);
    if (!res.ok) throw new Error(`GET /api/v1.0/openapi.json answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await pipeline.close();
    await core.redis.quit();
    await redis.stop();
  }
}

const document = await servedDocument();
writeFileSync(new URL('openapi.json', CLIENT_DIR), `${JSON.stringify(document, null, 2)}\n`);
writeFileSync(new URL('src/schema.d.ts', CLIENT_DIR), await schemaSource(document));
console.error('wrote clients/typescript/openapi.json and clients/typescript/src/schema.d.ts');
