import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { CustodyClient } from '../custody/custody-client.js';
import type { LedgerRegistry } from '../ledger/registry.js';
import type { Ed25519Keys } from '../ledger/signatures.js';
import type { Metrics } from '../platform/metrics.js';
import type { VaultStore } from '../vaults/vault-store.js';
import type { OperationStore } from './store/operation-store.js';
import type { Queues } from './jobs/queues.js';
import type { SendOrderBook } from './sending/send-order.js';

/**
 * What the withdrawal route, the receiver and the workers share: the parts of the core they
 * read, and the signing loop's own pieces (built in app/pipeline.ts). Metrics are optional: absent
 * in tests that build deps by hand.
 */
export interface PipelineDeps {
  config: Config;
  logger: Logger;
  registry: LedgerRegistry;
  metrics?: Metrics;
  store: OperationStore;
  queues: Queues;
  /** The custody connector: the signing loop cannot run without one. */
  custody: CustodyClient;
  /** Each sending account's ready transactions and its send lock (send-order.ts). */
  sendOrder: SendOrderBook;
  /** The vault registry: a withdrawal's addresses, and where an invalidation sends the funds back. */
  vaults: VaultStore;
  /** The receiver's ed25519 key objects, made once per vault key (absent: made per check). */
  ed25519Keys?: Ed25519Keys;
}

/** Making or replacing a withdrawal reads the vault registry (which every pipeline part has). */
export type WithdrawalDeps = PipelineDeps;
