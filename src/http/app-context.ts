import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { CustodyClient } from '../custody/custody-client.js';
import type { LedgerRegistry } from '../ledger/registry.js';
import type { Metrics } from '../platform/metrics.js';
import type { VaultStore } from '../vaults/vault-store.js';
import type { ApiKeyRecord } from '../security/api-keys.js';
import type { AddressDeriver } from '../vaults/derivation/derive-addresses.js';
import type { HealthCache } from './health-cache.js';

export interface DependencyHealth {
  healthy: boolean;
  errorMessage?: string;
}

/**
 * Everything the HTTP layer uses: the parts of the core it reads (the custody connector for
 * vault registration by id; metrics, with which the app serves GET /metrics), the API keys,
 * and the dependencies `/status` reports.
 */
export interface AppContext {
  config: Config;
  logger: Logger;
  redis: Redis;
  /** The service's key prefix with its colon (`byow:`). */
  prefix: string;
  registry: LedgerRegistry;
  vaults: VaultStore;
  /** Absent when no CUSTODY_URL is configured. */
  custody?: CustodyClient;
  metrics?: Metrics;
  apiKeys: readonly ApiKeyRecord[];
  /** Further dependencies `/status` reports (the custody service, …). */
  healthChecks: Record<string, () => Promise<DependencyHealth>>;
  /** Derives address-from-publickey batches (the thread pool); without it, on the main thread in time slices. */
  addressDeriver?: AddressDeriver;
  /** Shares the dependency checks of the status routes among concurrent and recent callers; made by `createApp` when absent. */
  healthCache?: HealthCache;
}
