import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { CustodyClient } from '../custody/custody-client.js';
import type { LedgerRegistry } from '../ledger/registry.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ApiKeyRecord } from '../security/api-keys.js';
import type { VaultStore } from '../vaults/vault-store.js';
import type { AddressDeriver } from './derive-addresses.js';

export interface DependencyHealth {
  healthy: boolean;
  errorMessage?: string;
}

/** Everything the HTTP layer uses, passed in so tests can build it against real services. */
export interface AppContext {
  config: Config;
  logger: Logger;
  redis: Redis;
  registry: LedgerRegistry;
  vaults: VaultStore;
  apiKeys: readonly ApiKeyRecord[];
  /** Further dependencies `/status` reports (the custody service, …). */
  healthChecks: Record<string, () => Promise<DependencyHealth>>;
  /** The custody connector (vault registration by id reads keys from it). */
  custody?: CustodyClient;
  /** Prometheus metrics of this process; with them the app serves GET /metrics. */
  metrics?: Metrics;
  /** Derives address-from-publickey batches (the thread pool); without it, on the main thread in time slices. */
  addressDeriver?: AddressDeriver;
}
