import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { LedgerRegistry } from '../ledger/registry.js';
import type { Metrics } from '../platform/metrics.js';
import type { VaultStore } from '../vaults/vault-store.js';
import { createDepositQueue, startDepositWorker, type ScanJob } from './deposit-jobs.js';
import { DepositStore } from './deposit-store.js';
import { LedgerScanner } from './scan-ledger.js';
import { scannedLedgers } from './scanned-ledgers.js';

/**
 * How often a scanner reads the vault registry again at the latest, whatever its change counter
 * says (it reads it again as soon as the counter moves: watched-set.ts).
 */
const WATCH_REFRESH_MS = 10 * 60_000;

export interface Deposits {
  store: DepositStore;
  queue: Queue<ScanJob>;
  /** Ledgers this process scans (`DEPOSIT_LEDGERS`, else every one with a deposit source). */
  ledgers: string[];
  /** One check per scanned ledger for /status: unhealthy while its scan waits (node down or behind, a reorg too deep). */
  healthChecks(): Record<string, () => Promise<{ healthy: boolean; errorMessage?: string }>>;
  /** The scan worker and schedules (worker processes). */
  start(): Promise<{ running(): boolean; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** What the live scan and the back-fills are built from (app/pipeline.ts passes the same to both). */
export interface DepositDeps {
  redis: Redis;
  prefix: string;
  config: Config;
  logger: Logger;
  registry: LedgerRegistry;
  vaults: VaultStore;
  metrics?: Metrics;
}

/** Deposit detection for the ledgers to scan: every configured one whose adaptor offers a deposit source, or those DEPOSIT_LEDGERS lists. */
export function createDeposits(opts: DepositDeps): Deposits {
  const { redis, prefix, config, logger, registry, vaults, metrics } = opts;
  // First: a setting it refuses throws before a queue connection opens.
  const ledgers = scannedLedgers(registry, config.depositLedgers);
  const store = new DepositStore(redis, prefix);
  const queue = createDepositQueue(redis, config);
  queue.on('error', (err) => logger.debug({ err: err.message, queue: queue.name }, 'queue connection error'));
  return {
    store,
    queue,
    ledgers: ledgers.map((a) => a.ledgerId),
    healthChecks: () =>
      Object.fromEntries(
        ledgers.map((a) => [
          `deposits:${a.ledgerId}`,
          async () => {
            const view = await store.nodeView(a.ledgerId);
            if (!view) return { healthy: true };
            return view.waiting ? { healthy: false, errorMessage: view.waiting } : { healthy: true };
          },
        ]),
      ),
    start: () => {
      const scanners = new Map(
        ledgers.map((a) => [
          a.ledgerId,
          new LedgerScanner(
            a,
            a.depositSource!,
            {
              store,
              vaults,
              logger,
              observer: {
                applied: (ledger, r) => {
                  metrics?.depositBlocks.inc({ ledger });
                  for (const [event, n] of Object.entries({
                    detected: r.detected,
                    confirmed: r.confirmed,
                    reverted: r.reverted,
                    reorganised_after_confirmation: r.reorganisedAfterConfirmation,
                  }))
                    if (n) metrics?.deposits.inc({ ledger, event }, n);
                },
                lag: (ledger, blocks, seconds) => {
                  metrics?.depositLag.set({ ledger, unit: 'blocks' }, blocks);
                  metrics?.depositLag.set({ ledger, unit: 'seconds' }, seconds);
                },
              },
            },
            {
              window: config.depositReorgWindow,
              gapLimit: config.bip44GapLimit,
              refreshMs: WATCH_REFRESH_MS,
              startAfter: config.depositStart?.[a.ledgerId],
              confirmations: config.depositConfirmations?.[a.ledgerId],
            },
          ),
        ]),
      );
      return startDepositWorker({ config, logger, queue, store, scanners });
    },
    close: () => queue.close(),
  };
}
