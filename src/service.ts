import type { Server } from 'node:http';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config/load-config.js';
import { createCustodyClient } from './custody/connect-custody.js';
import type { CustodyClient } from './custody/custody-client.js';
import type { AppContext } from './http/app-context.js';
import { createApp, type AppExtensions } from './http/app.js';
import { answerClientErrorsAsJson } from './http/client-error.js';
import { LedgerRegistry } from './ledger/registry.js';
import { Reservations } from './ledger/reservations.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { hashApiKey, type ApiKeyRecord } from './security/api-keys.js';
import { connectRedis } from './redis.js';
import { VaultStore } from './vaults/vault-store.js';
import { servicePrefix } from './redis-keys.js';

export function apiKeyRecords(config: Pick<Config, 'apiKeys'>): ApiKeyRecord[] {
  return (config.apiKeys ?? []).map((k) => ({ name: k.name, sha256: k.sha256 ?? hashApiKey(k.key as string), scopes: k.scopes }));
}

/** The shared pieces every process (API, worker) builds from configuration. */
export interface Core {
  config: Config;
  logger: Logger;
  redis: Redis;
  registry: LedgerRegistry;
  vaults: VaultStore;
  reservations: Reservations;
  prefix: string;
  metrics: Metrics;
  /** The custody connector; absent when no CUSTODY_URL is configured. */
  custody?: CustodyClient;
}

export function createCore(config: Config, logger: Logger, redis = connectRedis(config.redisUrl, logger, 'byow-api'), metrics = createMetrics()): Core {
  const prefix = servicePrefix(config.keyPrefix);
  const reservations = new Reservations(redis, prefix, (kind, scope) => metrics.reservationEvents.inc({ ledger: scope.split(':')[0] ?? scope, kind }));
  const registry = LedgerRegistry.fromConfig(config, { logger, redis, fetch, reservations });
  const custody = createCustodyClient(config, logger);
  return { config, logger, redis, registry, vaults: new VaultStore(redis, prefix), reservations, prefix, metrics, custody };
}

export function appContext(core: Core, healthChecks: AppContext['healthChecks'] = {}): AppContext {
  return { ...core, apiKeys: apiKeyRecords(core.config), healthChecks };
}

export async function listen(core: Core, ext: AppExtensions = {}, healthChecks: AppContext['healthChecks'] = {}, port = core.config.port): Promise<Server> {
  const app = createApp(appContext(core, healthChecks), ext);
  return new Promise((resolve, reject) => {
    const server = app.listen(port, core.config.host, (err?: Error) => (err ? reject(err) : resolve(server)));
    answerClientErrorsAsJson(server);
  });
}
