import type { Core } from '../app/core.js';
import type { ApiKeyRecord } from '../security/api-keys.js';
import type { AddressDeriver } from '../vaults/derivation/derive-addresses.js';

export interface DependencyHealth {
  healthy: boolean;
  errorMessage?: string;
}

/**
 * Everything the HTTP layer uses: the parts of the core it reads (the custody connector for
 * vault registration by id; metrics, with which the app serves GET /metrics), the API keys,
 * and the dependencies `/status` reports.
 */
export interface AppContext extends Pick<Core, 'config' | 'logger' | 'redis' | 'prefix' | 'registry' | 'vaults' | 'custody'>, Partial<Pick<Core, 'metrics'>> {
  apiKeys: readonly ApiKeyRecord[];
  /** Further dependencies `/status` reports (the custody service, …). */
  healthChecks: Record<string, () => Promise<DependencyHealth>>;
  /** Derives address-from-publickey batches (the thread pool); without it, on the main thread in time slices. */
  addressDeriver?: AddressDeriver;
}
