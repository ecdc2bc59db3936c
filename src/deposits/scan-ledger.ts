import type { Logger } from 'pino';
import type { LedgerAdaptor } from '../ledger/adaptor.js';
import type { ChainBlock, ChainTip, DepositSource } from '../ledger/deposit-source.js';
import type { VaultStore } from '../vaults/vault-store.js';
import type { DepositData } from './deposit.js';
import type { Applied, Cursor, DepositStore } from './deposit-store.js';
import { findDeposits, raiseUsedMarks } from './find-deposits.js';
import { WatchedSet } from './watched-set.js';

/** What a scanner reports as it goes, for the metrics. */
export interface ScanObserver {
  applied?(ledgerId: string, applied: Applied): void;
  lag?(ledgerId: string, blocks: number, seconds: number): void;
}

export interface ScannerOptions {
  /** Blocks whose hashes (and deposits) are kept to undo a reorganisation: deeper ones are reported, not undone. */
  window: number;
  gapLimit: number;
  /** How often the watched set is read again from the registry at the latest. */
  refreshMs: number;
  /** Where a ledger's first scan starts: after this block. Absent: after the tip at the first scan. */
  startAfter?: number;
  /** How deep a deposit's block must be to be CONFIRMED, when not the ledger's `confirmations` (DEPOSIT_CONFIRMATIONS). */
  confirmations?: number;
}

/** How one pass ended. */
export interface PassResult {
  applied: number;
  /** The cursor is at the node's tip. */
  caughtUp: boolean;
  /** Why the pass stopped short of the tip (the node down or behind, a reorg deeper than the window). */
  waiting?: string;
}

/**
 * The deposit scanner of one ledger: from its cursor, block by block, each block checked
 * against the one before it, the deposits it holds applied with their events in one step
 * (deposit-store.ts). It holds nothing that matters between passes: the cursor is in Redis, so
 * any worker can run the next pass, and a pass cut short anywhere loses and repeats nothing.
 */
export class LedgerScanner {
  readonly watched: WatchedSet;
  /** Decimals of each configured asset, by symbol. */
  private readonly decimals: Map<string, number>;
  private readonly normalize: (a: string) => string;

  constructor(
    readonly adaptor: LedgerAdaptor,
    private readonly source: DepositSource,
    private readonly deps: { store: DepositStore; vaults: VaultStore; logger: Logger; observer?: ScanObserver },
    private readonly opts: ScannerOptions,
  ) {
    this.normalize = source.normalize?.bind(source) ?? ((a: string) => a);
    this.decimals = new Map(adaptor.assets().map((a) => [a.symbol, a.decimals]));
    this.watched = new WatchedSet(adaptor, deps.vaults, { gapLimit: opts.gapLimit, refreshMs: opts.refreshMs, normalize: this.normalize });
  }

  get ledgerId(): string {
    return this.adaptor.ledgerId;
  }

  /**
   * Scans from the cursor towards the node's tip, at most `maxBlocks` blocks or until
   * `deadline` (ms since epoch); `keepGoing` is asked before each block (the scanner's lock).
   */
  async pass(limits: { maxBlocks: number; deadline: number; keepGoing?: () => Promise<boolean> }): Promise<PassResult> {
    const { store } = this.deps;
    const L = this.ledgerId;
    let tip: ChainTip;
    try {
      tip = await this.source.tip();
    } catch (e) {
      return this.wait(`the node does not answer: ${(e as Error).message}`);
    }
    let cursor = await store.cursor(L);
    if (!cursor) {
      const start = await this.source.block(this.opts.startAfter ?? tip.height);
      if (!start) return this.wait(`the node has no block ${this.opts.startAfter ?? tip.height} to start after yet`, tip);
      await store.initCursor(L, start);
      cursor = (await store.cursor(L)) as Cursor;
      // Debug: it comes once per ledger, on the first scan, which in the sandbox runs after the
      // banner that must stay the last thing a start prints; how far behind a scan is shows on /metrics.
      this.deps.logger.debug({ ledgerId: L, after: cursor.height }, 'deposit scan starts');
    }
    let applied = 0;
    // The cursor's height before a reorganisation: orphaned deposits wait for the new chain to reach it.
    let reorgTop: number | undefined;
    for (;;) {
      if (applied >= limits.maxBlocks || Date.now() >= limits.deadline) break;
      if (limits.keepGoing && !(await limits.keepGoing())) break;
      // Before every block (one ZCARD unless the registry changed): a vault registered during a
      // long pass is watched in every block scanned after its registration.
      await this.watched.refresh();
      let block: ChainBlock | undefined;
      if (cursor.height >= tip.height) {
        // Nothing new: unless a block the scanner applied was replaced at the tip's height, wait.
        const saved = tip.height === cursor.height ? cursor.hash : await store.blockHash(L, tip.height);
        if (saved === undefined || saved === tip.hash) {
          if (tip.height < cursor.height) return this.wait(`the node is at block ${tip.height}, behind the scan at ${cursor.height}`, tip, cursor, applied);
          break;
        }
      } else {
        try {
          block = await this.source.block(cursor.height + 1, (a) => this.watched.get(a) !== undefined);
        } catch (e) {
          return this.wait(`the node does not answer: ${(e as Error).message}`, tip, cursor, applied);
        }
        if (!block) return this.wait(`the node has no block ${cursor.height + 1} yet`, tip, cursor, applied);
      }
      if (!block || block.parentHash !== cursor.hash) {
        reorgTop ??= cursor.height;
        const undone = await store.unwind(L, cursor, reorgTop);
        if (undone === 'too-deep') {
          this.deps.logger.error({ ledgerId: L, height: cursor.height }, 'reorganisation deeper than DEPOSIT_REORG_WINDOW: the scan waits for an operator');
          return this.wait(`a reorganisation deeper than the reorg window (${this.opts.window} blocks) below block ${cursor.height}`, tip, cursor, applied);
        }
        if (undone === 'done') this.deps.logger.warn({ ledgerId: L, height: cursor.height, hash: cursor.hash }, 'block left the best chain; stepping back');
        cursor = (await store.cursor(L)) as Cursor;
        continue;
      }
      const found = this.depositsIn(block);
      const result = await store.apply(L, cursor, block, found, {
        confirmations: this.opts.confirmations ?? this.adaptor.confirmations,
        window: this.opts.window,
      });
      if (!result) {
        // Another worker applied it first: go on from where it is.
        cursor = (await store.cursor(L)) as Cursor;
        continue;
      }
      applied++;
      reorgTop = undefined;
      this.deps.observer?.applied?.(L, result);
      if (result.reorganisedAfterConfirmation)
        this.deps.logger.error(
          { ledgerId: L, height: block.height, count: result.reorganisedAfterConfirmation },
          'CONFIRMED deposits left the best chain: look at them by hand',
        );
      await this.raiseUsedMarks(found);
      cursor = { height: block.height, hash: block.hash, time: block.time };
      if (cursor.height >= tip.height) {
        // Caught up with the tip seen at the start: look again before stopping.
        try {
          tip = await this.source.tip();
        } catch (e) {
          return this.wait(`the node does not answer: ${(e as Error).message}`, tip, cursor, applied);
        }
      }
    }
    await this.report(tip, cursor);
    return { applied, caughtUp: cursor.height >= tip.height };
  }

  /** The transfers of a block that are deposits: to a watched address, of some value, not from the same vault. */
  depositsIn(block: ChainBlock): DepositData[] {
    return findDeposits(this.ledgerId, this.decimals, this.watched, block);
  }

  private async raiseUsedMarks(found: DepositData[]): Promise<void> {
    if (await raiseUsedMarks(this.deps.vaults, this.watched, found)) this.watched.invalidate();
  }

  private async report(tip: ChainTip, cursor: Cursor, waiting?: string): Promise<void> {
    const lagBlocks = Math.max(0, tip.height - cursor.height);
    const lagSeconds = lagBlocks === 0 || !cursor.time ? 0 : Math.max(0, (Date.now() - cursor.time) / 1000);
    this.deps.observer?.lag?.(this.ledgerId, lagBlocks, lagSeconds);
    await this.deps.store.saveNodeView(this.ledgerId, {
      tip: tip.height,
      cursor: cursor.height,
      lagBlocks,
      lagSeconds: Math.round(lagSeconds),
      ...(waiting ? { waiting } : {}),
      at: new Date().toISOString(),
    });
  }

  private async wait(why: string, tip?: ChainTip, cursor?: Cursor, applied = 0): Promise<PassResult> {
    this.deps.logger.debug({ ledgerId: this.ledgerId, why }, 'deposit scan waits');
    if (tip && cursor) await this.report(tip, cursor, why);
    else {
      const before = await this.deps.store.nodeView(this.ledgerId);
      await this.deps.store.saveNodeView(this.ledgerId, { ...before, waiting: why, at: new Date().toISOString() });
    }
    return { applied, caughtUp: false, waiting: why };
  }
}
