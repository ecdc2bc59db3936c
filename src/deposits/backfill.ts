import type { Logger } from 'pino';
import type { LedgerAdaptor } from '../ledger/adaptor.js';
import type { ChainBlock, DepositSource } from '../ledger/deposit-source.js';
import type { VaultRecord } from '../vaults/vault-schema.js';
import type { VaultStore } from '../vaults/vault-store.js';
import { watchAddresses } from '../vaults/watch-addresses.js';
import type { BackfillStore, BackfillView } from './backfill-store.js';
import { findDeposits, raiseUsedMarks, type WatchLookup } from './find-deposits.js';
import type { Watched } from './watched-set.js';

/** How one back-fill pass ended. */
export interface BackfillPass {
  applied: number;
  /** The last block is read: the back-fill is DONE. */
  done: boolean;
  /** Why it waits (the node down, the live scan settling a reorganisation): the job looks again later. */
  waiting?: string;
  /** It is over without being done: replaced by a newer back-fill of the vault, or stopped. */
  over?: string;
}

/** A pass that found its back-fill no longer running: done, or over for the reason given. */
const ended = (why: string, applied: number): BackfillPass => (why === 'done' ? { applied, done: true } : { applied, done: false, over: why });

/**
 * The back-fill of one vault's earlier blocks on one ledger: from its own cursor up to where
 * the live scan was when it was asked for, block by block, for that vault's addresses only.
 * Its deposits are written by the same step logic and under the same keys as the live scan's
 * (backfill-scripts.ts), so one both find is one deposit with one set of events. Like the live
 * scanner it holds nothing between passes: its cursor is in Redis, so a pass cut short anywhere
 * (a worker killed) is taken up by the next one, which repeats nothing.
 */
export class BackfillScanner {
  private readonly decimals: Map<string, number>;
  private readonly normalize: (a: string) => string;

  constructor(
    readonly adaptor: LedgerAdaptor,
    private readonly source: DepositSource,
    private readonly deps: {
      backfills: BackfillStore;
      vaults: VaultStore;
      logger: Logger;
      /** Deposits the back-fill DETECTED or CONFIRMED, for the metrics. */
      counted?(ledgerId: string, detected: number, confirmed: number): void;
    },
    private readonly opts: { gapLimit: number },
  ) {
    this.normalize = source.normalize?.bind(source) ?? ((a: string) => a);
    this.decimals = new Map(adaptor.assets().map((a) => [a.symbol, a.decimals]));
  }

  get ledgerId(): string {
    return this.adaptor.ledgerId;
  }

  /** Reads on from the back-fill's cursor, at most `maxBlocks` blocks or until `deadline`; `keepGoing` is asked before each block. */
  async pass(
    job: { vaultId: string; backfillId: string },
    limits: { maxBlocks: number; deadline: number; keepGoing?: () => boolean | Promise<boolean> },
  ): Promise<BackfillPass> {
    const { backfills, vaults } = this.deps;
    let b = await this.current(job);
    if (typeof b === 'string') return ended(b, 0);
    const record = await vaults.find(job.vaultId);
    if (!record || record.ledgerId !== this.ledgerId) {
      const why = `vault ${job.vaultId} is no longer registered on ${this.ledgerId}`;
      await backfills.stop(job.vaultId, job.backfillId, why);
      return { applied: 0, done: false, over: why };
    }
    let watch = await this.watchOf(record);
    let applied = 0;
    while (b.height < b.toHeight) {
      if (applied >= limits.maxBlocks || Date.now() >= limits.deadline) break;
      if (limits.keepGoing && !(await limits.keepGoing())) break;
      const height = b.height + 1;
      let block: ChainBlock | undefined;
      try {
        block = await this.source.block(height, (a) => watch.get(a) !== undefined);
      } catch (e) {
        return this.wait(b, `the node does not answer: ${(e as Error).message}`, applied);
      }
      if (!block) return this.wait(b, `the node has no block ${height}`, applied);
      const found = findDeposits(this.ledgerId, this.decimals, watch, block);
      const step = await backfills.apply(b, b.height, block, found, this.adaptor.confirmations);
      if (!step.applied) {
        if (!step.moved) return this.wait(b, step.waiting, applied);
        // Another worker's step got there first, or the back-fill was replaced: read where it is.
        const now = await this.current(job);
        if (typeof now === 'string') return ended(now, applied);
        b = now;
        continue;
      }
      applied++;
      if (step.detected || step.confirmed) this.deps.counted?.(this.ledgerId, step.detected, step.confirmed);
      if (await raiseUsedMarks(vaults, watch, found)) watch = await this.watchOf((await vaults.find(job.vaultId)) ?? record);
      b = { ...b, height: block.height };
      if (step.done) {
        const view = await backfills.get(job.vaultId);
        this.deps.logger.info(
          { ledgerId: this.ledgerId, vaultId: job.vaultId, from: b.fromHeight, to: b.toHeight, found: view?.found, detected: view?.detected },
          'deposit back-fill done',
        );
        return { applied, done: true };
      }
    }
    return { applied, done: false };
  }

  /** The back-fill the job is for, running; else why not: 'done', or the reason it is over. */
  private async current(job: { vaultId: string; backfillId: string }): Promise<BackfillView | string> {
    const b = await this.deps.backfills.get(job.vaultId);
    if (!b || b.backfillId !== job.backfillId) return `replaced by a newer back-fill of vault ${job.vaultId}`;
    if (b.state === 'DONE') return 'done';
    if (b.state !== 'RUNNING') return `stopped: ${b.error ?? b.state}`;
    return b;
  }

  /** The vault's addresses as the source spells them (a BIP44 vault's up to the gap limit past its last used). */
  private async watchOf(record: VaultRecord): Promise<WatchLookup> {
    const map = new Map<string, Watched>();
    for (const w of await watchAddresses(this.adaptor, record, this.opts.gapLimit, this.deps.vaults.addresses))
      map.set(this.normalize(w.address), { ...w, record });
    return { get: (a) => map.get(this.normalize(a)) };
  }

  private async wait(b: BackfillView, why: string, applied: number): Promise<BackfillPass> {
    this.deps.logger.debug({ ledgerId: this.ledgerId, vaultId: b.vaultId, why }, 'deposit back-fill waits');
    await this.deps.backfills.noteWaiting(b.vaultId, b.backfillId, why);
    return { applied, done: false, waiting: why };
  }
}
