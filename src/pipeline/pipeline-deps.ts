import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { CustodyClient } from '../custody/custody-client.js';
import type { UnsignedWithdrawal } from '../ledger/adaptor.js';
import type { LedgerRegistry } from '../ledger/registry.js';
import type { Metrics } from '../metrics/metrics.js';
import type { StoredUnsigned } from './operation.js';
import type { OperationStore } from './operation-store.js';
import type { Queues } from './queues.js';
import type { SendOrderBook } from './send-order.js';

/** What the withdrawal route, the receiver and the workers share. */
export interface PipelineDeps {
  config: Config;
  logger: Logger;
  store: OperationStore;
  registry: LedgerRegistry;
  queues: Queues;
  custody: CustodyClient;
  /** Counters and histograms of this process (absent in tests that build deps by hand). */
  metrics?: Metrics;
  /** Who waits for which predecessor (absent: waiting broadcasts only poll). */
  sendOrder?: SendOrderBook;
}

export function toStored(u: UnsignedWithdrawal): StoredUnsigned {
  return { txs: u.txs, payloads: u.payloads, fee: u.fee.toString(), state: u.state, ...(u.expiresAt ? { expiresAt: u.expiresAt } : {}) };
}

export function fromStored(s: StoredUnsigned): UnsignedWithdrawal {
  return { txs: s.txs, payloads: s.payloads, fee: BigInt(s.fee), state: s.state, ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}) };
}
