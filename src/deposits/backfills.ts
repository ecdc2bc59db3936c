import type { Queue } from 'bullmq';
import type { LedgerAdaptor } from '../ledger/adaptor.js';
import type { ChainTip } from '../ledger/deposit-source.js';
import { ConflictError, InvalidArgumentError, isAppError, UnavailableError } from '../platform/errors.js';
import { BackfillScanner } from './backfill.js';
import { createBackfillQueue, enqueueBackfill, startBackfillWorker, type BackfillJob } from './backfill-jobs.js';
import { BackfillStore, type BackfillView } from './backfill-store.js';
import { DepositStore } from './deposit-store.js';
import type { DepositDeps } from './deposits.js';

export interface Backfills {
  store: BackfillStore;
  queue: Queue<BackfillJob>;
  /**
   * Starts the back-fill of a vault's deposits from `fromHeight` up to the block the live scan
   * of its ledger has read (replacing the vault's back-fill before, if any). Throws 422 for a
   * vault that is not registered, a ledger without deposits, a height past the tip or past the
   * live scan; 409 while the ledger's scan has not started. `reaches`: whether the caller's key
   * may act on the vault on its ledger; a vault it may not is answered as one not registered.
   */
  request(vaultId: string, fromHeight: number, reaches?: (ledgerId: string) => boolean): Promise<BackfillView>;
  /** The back-fill workers (worker processes). */
  start(): Promise<{ running(): boolean; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** Back-fills of vaults' earlier deposits, on every ledger whose adaptor offers a deposit source. */
export function createBackfills(opts: DepositDeps): Backfills {
  const { redis, prefix, config, logger, registry, vaults, metrics } = opts;
  const store = new BackfillStore(redis, prefix);
  const deposits = new DepositStore(redis, prefix);
  const queue = createBackfillQueue(redis, config);
  queue.on('error', (err) => logger.debug({ err: err.message, queue: queue.name }, 'queue connection error'));
  const ledgers = new Map(registry.list().flatMap((a): [string, LedgerAdaptor][] => (a.depositSource ? [[a.ledgerId, a]] : [])));
  return {
    store,
    queue,
    request: async (vaultId, fromHeight, reaches = () => true) => {
      const record = await vaults.find(vaultId);
      if (!record || !reaches(record.ledgerId)) throw new InvalidArgumentError(`vaultId '${vaultId}' is not a registered vault`);
      const adaptor = ledgers.get(record.ledgerId);
      if (!adaptor)
        throw new InvalidArgumentError(
          `Vault '${vaultId}' is on ledger ${record.ledgerId}, which has no deposit scan. Ledgers with one: ${[...ledgers.keys()].join(', ') || '(none)'}`,
        );
      const L = adaptor.ledgerId;
      let tip: ChainTip;
      try {
        tip = await adaptor.depositSource!.tip();
      } catch (e) {
        throw isAppError(e) ? e : new UnavailableError(`The ${L} node does not answer: ${(e as Error).message}`, e);
      }
      if (fromHeight > tip.height) throw new InvalidArgumentError(`fromHeight ${fromHeight} is beyond the tip of ${L} (block ${tip.height})`);
      const cursor = await deposits.cursor(L);
      if (!cursor) throw new ConflictError(`The deposit scan of ${L} has not started yet: a back-fill reads up to where it is, so ask again once it runs`);
      if (fromHeight > cursor.height)
        throw new InvalidArgumentError(
          `fromHeight ${fromHeight} is after the blocks the deposit scan of ${L} has read (up to ${cursor.height}): the scan reads those itself`,
        );
      const b = await store.start(L, vaultId, fromHeight, cursor.height);
      await enqueueBackfill(queue, b);
      return b;
    },
    start: () => {
      const scanners = new Map(
        [...ledgers.values()].map((a) => [
          a.ledgerId,
          new BackfillScanner(
            a,
            a.depositSource!,
            {
              backfills: store,
              vaults,
              logger,
              counted: (ledger, detected, confirmed) => {
                if (detected) metrics?.deposits.inc({ ledger, event: 'detected' }, detected);
                if (confirmed) metrics?.deposits.inc({ ledger, event: 'confirmed' }, confirmed);
              },
            },
            { gapLimit: config.bip44GapLimit },
          ),
        ]),
      );
      return startBackfillWorker({ config, logger, store, scanners });
    },
    close: () => queue.close(),
  };
}
