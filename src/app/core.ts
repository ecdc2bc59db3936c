import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import { createCustodyClient } from '../custody/connect-custody.js';
import type { CustodyClient } from '../custody/custody-client.js';
import { LedgerRegistry } from '../ledger/registry.js';
import { minReservationMs, Reservations } from '../ledger/reservations.js';
import { keepAliveFetch } from '../platform/http-client.js';
import { createMetrics, type Metrics } from '../platform/metrics.js';
import { connectRedis } from '../platform/redis.js';
import { servicePrefix } from '../platform/redis-keys.js';
import { VaultStore } from '../vaults/vault-store.js';

/** The shared pieces every process (API, worker) builds from configuration. */
export interface Core {
  config: Config;
  logger: Logger;
  redis: Redis;
  registry: LedgerRegistry;
  vaults: VaultStore;
  reservations: Reservations;
  /** The service's key prefix with its colon (`byow:`): every key name comes from redis-keys.ts. */
  prefix: string;
  metrics: Metrics;
  /** The custody connector; absent when no CUSTODY_URL is configured. */
  custody?: CustodyClient;
}

export function createCore(config: Config, logger: Logger, redis = connectRedis(config.redisUrl, logger, 'byow-api'), metrics = createMetrics()): Core {
  const prefix = servicePrefix(config.keyPrefix);
  const reservations = new Reservations(redis, prefix, (kind, scope) => metrics.reservationEvents.inc({ ledger: scope.split(':')[0] ?? scope, kind }));
  const registry = LedgerRegistry.fromConfig(config, {
    logger,
    fetch: keepAliveFetch(),
    reservations,
    minReservationMs: minReservationMs(config.signTimeoutSeconds),
  });
  const custody = createCustodyClient(config, logger, keepAliveFetch());
  return { config, logger, redis, registry, vaults: new VaultStore(redis, prefix), reservations, prefix, metrics, custody };
}
