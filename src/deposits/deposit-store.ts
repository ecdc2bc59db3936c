import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { idsNewestFirst, type TimeIndexEntry, type TimePage } from '../platform/time-index.js';
import type { ChainBlock } from '../ledger/deposit-source.js';
import { depositKeys, type DepositKeys } from '../platform/redis-keys.js';
import { depositFromFields, type DepositData, type DepositView } from './deposit.js';
import { APPLY_BLOCK, INIT_CURSOR, RELEASE_LOCK, TAKE_LOCK, UNWIND_BLOCK } from './deposit-scripts.js';

/** The last block the scanner applied on a ledger. */
export interface Cursor {
  height: number;
  hash: string;
  /** Block time, ms since epoch. */
  time: number;
}

/** What one applied block changed. */
export interface Applied {
  detected: number;
  confirmed: number;
  reverted: number;
  /** CONFIRMED deposits whose block left the chain: flagged, not undone. */
  reorganisedAfterConfirmation: number;
}

/** What the scanner last saw of the node, for /status and the metrics. */
export interface NodeView {
  tip?: number;
  cursor?: number;
  lagBlocks?: number;
  lagSeconds?: number;
  /** Set while the node does not answer or lags behind the cursor. */
  waiting?: string;
  at: string;
}

/**
 * Deposits in Redis (key names in redis-keys.ts `depositKeys`): per ledger the cursor, the
 * hashes of the blocks within the reorg window and the deposits they hold; one hash per
 * deposit; indexes by time for the lists. Every change of a deposit goes through one of the
 * scanner's steps (deposit-scripts.ts), with its event, as a compare-and-set on the cursor.
 */
export class DepositStore {
  readonly keys: DepositKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = depositKeys(prefix);
  }

  async cursor(ledgerId: string): Promise<Cursor | undefined> {
    const c = await this.redis.hgetall(this.keys.cursor(ledgerId));
    if (c.height === undefined || c.hash === undefined) return undefined;
    return { height: Number(c.height), hash: c.hash, time: Number(c.time ?? 0) };
  }

  /** Hash of a block applied within the window, if any. */
  async blockHash(ledgerId: string, height: number): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.blocks(ledgerId), String(height))) ?? undefined;
  }

  /** Starts a ledger's scan after `block` (which itself is not scanned); false when it had a cursor. */
  async initCursor(ledgerId: string, block: Pick<ChainBlock, 'height' | 'hash' | 'time'>): Promise<boolean> {
    const set = await INIT_CURSOR.run(this.redis, [this.keys.cursor(ledgerId), this.keys.blocks(ledgerId)], [block.height, block.hash, block.time]);
    return set === 1;
  }

  /**
   * Applies `block` on top of `from` with the deposits found in it: new ones DETECTED, the
   * ones `confirmations` deep CONFIRMED, orphans of a reorg the chain did not take again
   * REVERTED, each with its event. Undefined when the cursor is no longer `from`.
   */
  async apply(
    ledgerId: string,
    from: Cursor,
    block: ChainBlock,
    found: DepositData[],
    opts: { confirmations: number; window: number; now?: Date },
  ): Promise<Applied | undefined> {
    const k = this.keys;
    const now = opts.now ?? new Date();
    const limit = block.height - Math.max(1, opts.confirmations) + 1;
    const [due, orphans] = await Promise.all([
      this.redis.zrangebyscore(k.unconfirmed(ledgerId), '-inf', limit),
      this.redis.zrangebyscore(k.orphans(ledgerId), '-inf', block.height),
    ]);
    const keys: string[] = [k.cursor(ledgerId), k.blocks(ledgerId), k.window(ledgerId), k.unconfirmed(ledgerId), k.orphans(ledgerId), k.byTime, k.outbox];
    const slot = new Map<string, number>();
    const keyIndex = (key: string): number => {
      let i = slot.get(key);
      if (i === undefined) {
        keys.push(key);
        i = keys.length;
        slot.set(key, i);
      }
      return i;
    };
    const ops: (string | number)[] = [];
    for (const d of found) {
      ops.push('seen', keyIndex(k.deposit(d.depositId)), keyIndex(k.byVault(d.vaultId)), d.depositId, randomUUID(), JSON.stringify(d));
    }
    // Deposits of this very block are due at once when one confirmation is final.
    const confirmNow = [...due, ...(limit >= block.height ? found.map((d) => d.depositId) : [])];
    for (const id of new Set(confirmNow)) ops.push('confirm', keyIndex(k.deposit(id)), id, randomUUID());
    for (const id of orphans) ops.push('revert', keyIndex(k.deposit(id)), id, randomUUID());
    const reply = (await APPLY_BLOCK.run(this.redis, keys as [string, string, string, string, string, string, string, ...string[]], [
      from.height,
      from.hash,
      block.height,
      block.hash,
      block.time,
      new Date(block.time).toISOString(),
      now.toISOString(),
      now.getTime(),
      limit,
      block.height - opts.window,
      ...ops,
    ])) as number[];
    if (reply[0] !== 1) return undefined;
    return { detected: reply[1] ?? 0, confirmed: reply[2] ?? 0, reverted: reply[3] ?? 0, reorganisedAfterConfirmation: reply[4] ?? 0 };
  }

  /**
   * Takes the cursor's block off (the chain no longer has it) and steps back one block. Its
   * deposits wait until the new chain is `reorgTop` high (the cursor's height before the
   * reorganisation) and are REVERTED then unless the new chain holds them.
   * `moved`: another step got there first, or a back-fill added a deposit of the block meanwhile (read again); `too-deep`: the block below is older than the window.
   */
  async unwind(ledgerId: string, at: Cursor, reorgTop: number, now = new Date()): Promise<'done' | 'moved' | 'too-deep'> {
    const k = this.keys;
    const ids = await this.redis.zrangebyscore(k.window(ledgerId), at.height, at.height);
    const reply = await UNWIND_BLOCK.run(
      this.redis,
      [k.cursor(ledgerId), k.blocks(ledgerId), k.window(ledgerId), k.unconfirmed(ledgerId), k.orphans(ledgerId), ...ids.map((id) => k.deposit(id))],
      [at.height, at.hash, reorgTop, now.toISOString(), ...ids],
    );
    return reply === 1 ? 'done' : reply === 0 ? 'moved' : 'too-deep';
  }

  async get(depositId: string, scannedHeight?: number): Promise<DepositView | undefined> {
    return depositFromFields(await this.redis.hgetall(this.keys.deposit(depositId)), scannedHeight);
  }

  /** Deposits by id in the given order (gone ones left out), with confirmations as of each ledger's cursor. */
  async many(ids: string[]): Promise<DepositView[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.deposit(id));
    const replies = (await pipeline.exec()) ?? [];
    const heights = new Map<string, number | undefined>();
    const out: DepositView[] = [];
    for (const [err, fields] of replies) {
      if (err) throw err;
      const raw = fields as Record<string, string>;
      const ledgerId = raw.data ? (JSON.parse(raw.data) as DepositData).ledgerId : undefined;
      if (ledgerId !== undefined && !heights.has(ledgerId)) heights.set(ledgerId, (await this.cursor(ledgerId))?.height);
      const view = depositFromFields(raw, ledgerId === undefined ? undefined : heights.get(ledgerId));
      if (view) out.push(view);
    }
    return out;
  }

  /**
   * Deposit ids detected in [fromMs, toMs], newest first, from the vault's index or the index
   * of all deposits; `before` continues after the last entry of a previous page.
   */
  async idsNewestFirst(opts: TimePage & { vaultId?: string }): Promise<TimeIndexEntry[]> {
    return idsNewestFirst(this.redis, opts.vaultId ? this.keys.byVault(opts.vaultId) : this.keys.byTime, opts);
  }

  /** Takes or renews the ledger's scanner lock for `ttlMs`; false while another worker holds it. */
  async lock(ledgerId: string, token: string, ttlMs: number): Promise<boolean> {
    return (await TAKE_LOCK.run(this.redis, [this.keys.lock(ledgerId)], [token, ttlMs])) === 1;
  }

  async unlock(ledgerId: string, token: string): Promise<void> {
    await RELEASE_LOCK.run(this.redis, [this.keys.lock(ledgerId)], [token]);
  }

  async saveNodeView(ledgerId: string, view: NodeView): Promise<void> {
    await this.redis.set(this.keys.node(ledgerId), JSON.stringify(view));
  }

  async nodeView(ledgerId: string): Promise<NodeView | undefined> {
    const raw = await this.redis.get(this.keys.node(ledgerId));
    return raw ? (JSON.parse(raw) as NodeView) : undefined;
  }
}
