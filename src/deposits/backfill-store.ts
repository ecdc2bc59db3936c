import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ChainBlock } from '../ledger/deposit-source.js';
import { depositKeys, type DepositKeys } from '../platform/redis-keys.js';
import { BACKFILL_BLOCK, NOTE_BACKFILL, START_BACKFILL } from './backfill-scripts.js';
import type { DepositData } from './deposit.js';

export const BACKFILL_STATES = ['RUNNING', 'DONE', 'STOPPED'] as const;

/** A vault's back-fill as the API shows it. */
export const backfillViewSchema = z
  .object({
    backfillId: z.string(),
    ledgerId: z.string(),
    vaultId: z.string(),
    fromHeight: z.number().describe('First block read'),
    toHeight: z.number().describe('Last block read: where the live scan was when the back-fill was asked for'),
    height: z.number().describe('The last block read so far (fromHeight - 1 before the first)'),
    state: z.enum(BACKFILL_STATES).describe('RUNNING, DONE once toHeight is read, STOPPED when it could not go on (error says why)'),
    found: z.number().describe('Deposits to the vault in the blocks read, the ones the live scan had found too included'),
    detected: z.number().describe('Of those, the ones new to the service (told by a deposit.detected event now)'),
    waiting: z.string().optional().describe('Why it waits at the moment (the node down, a reorganisation the live scan is settling)'),
    error: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().optional(),
  })
  .meta({ id: 'DepositBackfill' });
export type BackfillView = z.infer<typeof backfillViewSchema>;

/** What one back-filled block did. */
export type BackfillStep =
  | { applied: true; detected: number; confirmed: number; done: boolean }
  /** The record is no longer this back-fill at that height (replaced, stopped, or another worker's step got there first). */
  | { applied: false; moved: true }
  /** The live scan has not (or no longer) the same block at that height: wait for it. */
  | { applied: false; moved: false; waiting: string };

/**
 * Back-fills in Redis: one record per vault (`deposit-backfill:{vault}`, redis-keys.ts), its own
 * cursor in it. Deposits are written by BACKFILL_BLOCK under the live scanner's keys.
 */
export class BackfillStore {
  readonly keys: DepositKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = depositKeys(prefix);
  }

  /** Starts a back-fill of `vaultId` over [from, to], replacing the vault's one before. */
  async start(ledgerId: string, vaultId: string, fromHeight: number, toHeight: number, now = new Date()): Promise<BackfillView> {
    const id = randomUUID();
    await START_BACKFILL.run(this.redis, [this.keys.backfill(vaultId)], [id, ledgerId, vaultId, fromHeight, toHeight, fromHeight - 1, now.toISOString()]);
    return (await this.get(vaultId)) as BackfillView;
  }

  async get(vaultId: string): Promise<BackfillView | undefined> {
    const f = await this.redis.hgetall(this.keys.backfill(vaultId));
    if (!f.id) return undefined;
    return {
      backfillId: f.id,
      ledgerId: f.ledgerId as string,
      vaultId: f.vaultId as string,
      fromHeight: Number(f.fromHeight),
      toHeight: Number(f.toHeight),
      height: Number(f.height),
      state: f.state as BackfillView['state'],
      found: Number(f.found ?? 0),
      detected: Number(f.detected ?? 0),
      ...(f.waiting ? { waiting: f.waiting } : {}),
      ...(f.error ? { error: f.error } : {}),
      createdAt: f.createdAt as string,
      updatedAt: f.updatedAt as string,
      ...(f.finishedAt ? { finishedAt: f.finishedAt } : {}),
    };
  }

  /**
   * Applies `block` (the one after `fromHeight`, the back-fill's cursor) with the vault's
   * deposits found in it, through the live step's logic (backfill-scripts.ts).
   */
  async apply(
    b: Pick<BackfillView, 'backfillId' | 'ledgerId' | 'vaultId'>,
    fromHeight: number,
    block: ChainBlock,
    found: DepositData[],
    confirmations: number,
    now = new Date(),
  ): Promise<BackfillStep> {
    const k = this.keys;
    const L = b.ledgerId;
    const keys: string[] = [k.backfill(b.vaultId), k.cursor(L), k.blocks(L), k.window(L), k.unconfirmed(L), k.orphans(L), k.byTime, k.outbox];
    const ops: (string | number)[] = [];
    for (const d of found) {
      keys.push(k.deposit(d.depositId), k.byVault(d.vaultId));
      ops.push(keys.length - 1, keys.length, d.depositId, randomUUID(), randomUUID(), JSON.stringify(d));
    }
    const reply = (await BACKFILL_BLOCK.run(this.redis, keys as [string, string, string, string, string, string, string, string, ...string[]], [
      b.backfillId,
      fromHeight,
      block.height,
      block.hash,
      new Date(block.time).toISOString(),
      now.toISOString(),
      now.getTime(),
      confirmations,
      ...ops,
    ])) as number[];
    switch (reply[0]) {
      case 1:
        return { applied: true, detected: reply[1] ?? 0, confirmed: reply[2] ?? 0, done: reply[3] === 1 };
      case -1:
        return { applied: false, moved: false, waiting: `the live deposit scan is at block ${reply[1]}, below block ${block.height}` };
      case -2:
        return {
          applied: false,
          moved: false,
          waiting: `the live deposit scan holds another block at height ${block.height}: a reorganisation it settles first`,
        };
      default:
        return { applied: false, moved: true };
    }
  }

  /** Notes why the back-fill waits (undefined: it goes on again); false when it is no longer running. */
  async noteWaiting(vaultId: string, backfillId: string, why: string | undefined, now = new Date()): Promise<boolean> {
    return (await NOTE_BACKFILL.run(this.redis, [this.keys.backfill(vaultId)], [backfillId, why ?? '', 0, now.toISOString()])) === 1;
  }

  /** Ends a running back-fill that cannot go on (its vault removed), with the reason. */
  async stop(vaultId: string, backfillId: string, why: string, now = new Date()): Promise<void> {
    await NOTE_BACKFILL.run(this.redis, [this.keys.backfill(vaultId)], [backfillId, why, 1, now.toISOString()]);
  }
}
