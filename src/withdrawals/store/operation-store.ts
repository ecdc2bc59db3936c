import type { Redis } from 'ioredis';
import { idsNewestFirst, type TimeIndexEntry, type TimePage } from '../../platform/time-index.js';
import { ConflictError, NotFoundError, UnavailableError } from '../../platform/errors.js';
import { createHash, randomUUID } from 'node:crypto';
import type { IdempotencyClaim } from './idempotency.js';
import type { Operation, OperationStatus } from '../model/operation.js';
import { ADD_SIGNATURES, COMPARE_AND_SET, CREATE, FOR_DIGESTS, LINK_CUSTODY_ID } from './operation-scripts.js';
import { eventArgs, statusEventType, type EventArgs, type WithdrawalEventType } from './outbox.js';
import { withdrawalView } from '../model/withdrawal-view.js';
import { operationKeys, type OperationKeys } from '../../platform/redis-keys.js';

/** An entry of the index of operations not yet broadcast: the id and its creation time (the score). */
export interface OpenEntry {
  id: string;
  ms: number;
}

export interface StoredSignature {
  signature: string;
  recoveryId: 0 | 1;
}

const NO_EVENT: EventArgs = ['', '', '', '', ''];

/** `op` moved to `to` at `at`, with `change` applied and the move in its history. */
const moved = (op: Operation, to: OperationStatus, at: string, change: Partial<Operation> = {}, detail?: string): Operation => ({
  ...op,
  ...change,
  status: to,
  updatedAt: at,
  history: [...op.history, { status: to, at, ...(detail ? { detail } : {}) }],
});

/** Whether a move to `to` takes the operation out of the index of those not yet broadcast. */
const leavesOpen = (to: OperationStatus): boolean => to !== 'EXECUTING' && to !== 'SIGNED';

const found = (id: string, op: Operation | undefined): Operation => {
  if (!op) throw new NotFoundError(`operation ${id} not found`);
  return op;
};

const parseSignatures = (all: Record<string, string>): Map<number, StoredSignature> =>
  new Map(Object.entries(all).map(([i, v]) => [Number(i), JSON.parse(v) as StoredSignature]));

/** What a compare-and-set compares: the stored text's SHA-1, as Lua's redis.sha1hex gives it. */
const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/**
 * Durable operation records in Redis.
 *
 * Keys: `operationKeys` in redis-keys.ts.
 *
 * Every write is a compare-and-set on the whole stored record (re-read and re-applied when
 * another actor wrote first), so two workers, a worker and the reconciler, or a worker and a
 * speed-up request never overwrite each other's change; `transition` also checks the status.
 * Creation and every status change append their event to the outbox inside the same script.
 * All keys of a script share the prefix, so a `{hash-tagged}` prefix keeps them in one Redis
 * Cluster slot.
 */
export class OperationStore {
  private readonly keys: OperationKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = operationKeys(prefix);
  }

  /** The keys every script that writes an operation and its event touches. */
  private eventKeys(id: string): [op: string, seq: string, outbox: string] {
    return [this.keys.operation(id), this.keys.eventSequence(id), this.keys.outbox];
  }

  /** The outbox stream (read by the webhook dispatcher). */
  get outboxKey(): string {
    return this.keys.outbox;
  }

  private event(op: Operation, type: WithdrawalEventType): EventArgs {
    return eventArgs({ id: randomUUID(), type, at: op.updatedAt, withdrawalId: op.id, withdrawal: JSON.stringify(withdrawalView(op)) });
  }

  /**
   * Stores a new operation with its indexes and its `withdrawal.created` event, atomically.
   * Under an Idempotency-Key, only while the request still holds the key's claim, and the
   * claim records the withdrawal in the same step: a retry that took over a claim that ran
   * out and this slow request can never both make a withdrawal (idempotency.ts).
   */
  async create(op: Operation, claim?: IdempotencyClaim): Promise<void> {
    const keys = [
      ...this.eventKeys(op.id),
      this.keys.byVault(op.vaultId),
      this.keys.open,
      this.keys.byTime,
      ...op.unsigned.payloads.map((p) => this.digestKey(p.digest)),
      ...(claim ? [claim.key] : []),
    ] as const;
    const args = [
      JSON.stringify(op),
      String(Date.parse(op.createdAt)),
      ...this.event(op, statusEventType(op.status)),
      claim?.held ?? '',
      claim?.done ?? '',
    ] as const;
    const r = (await CREATE.run(this.redis, keys, args)) as number;
    if (r === 2) {
      throw new ConflictError(
        'This request ran past IDEMPOTENCY_CLAIM_SECONDS and a retry with the same Idempotency-Key took the key over: this request made no withdrawal; the retry answers with it',
        'ERR_IDEMPOTENCY_TAKEN_OVER',
      );
    }
    if (r === 3) {
      throw new UnavailableError(
        'The Idempotency-Key record was lost (a Redis failover or eviction): this request made no withdrawal; retry with the same key',
        undefined,
        'ERR_IDEMPOTENCY_LOST',
      );
    }
    if (r !== 1) throw new ConflictError(`operation ${op.id} exists`);
  }

  async find(id: string): Promise<Operation | undefined> {
    const raw = await this.redis.get(this.keys.operation(id));
    return raw ? (JSON.parse(raw) as Operation) : undefined;
  }

  async get(id: string): Promise<Operation> {
    return found(id, await this.find(id));
  }

  /**
   * The one resolver of the ids clients hold: a withdrawal's own id (`withdrawalId`, the key of
   * its record) or a custody operation id (of its original sign request or of a speed-up or
   * cancel), through the index the sign requests and the callback use (`opid:`).
   */
  async resolve(id: string): Promise<Operation | undefined> {
    // Own ids are UUIDs: an id with a colon could only name another key of a record (`op:{id}:seq`).
    const own = id.includes(':') ? undefined : await this.find(id);
    return own ?? (await this.findByCustodyId(id));
  }

  private async findByCustodyId(operationID: string): Promise<Operation | undefined> {
    const id = await this.redis.get(this.keys.custodyId(operationID));
    return id ? this.find(id) : undefined;
  }

  /** `resolve` within vault `vaultId`: a withdrawal of another vault is not found (404). */
  async resolveInVault(vaultId: string, id: string): Promise<Operation> {
    const op = await this.resolve(id);
    if (!op || op.vaultId !== vaultId) throw new NotFoundError(`No withdrawal ${id} in vault ${vaultId}`);
    return op;
  }

  private digestKey(digest: string): string {
    return this.keys.digest(digest);
  }

  /** The stored operations that have every one of these digests (a callback carries one per payload), read in one round trip. */
  async forDigests(digests: string[]): Promise<Operation[]> {
    if (digests.length === 0) return [];
    const raws = (await FOR_DIGESTS.run(
      this.redis,
      digests.map((d) => this.digestKey(d)),
      [this.keys.operation('')],
    )) as string[];
    return raws.map((r) => JSON.parse(r) as Operation);
  }

  /** Records the custody operation id; writes `withdrawal.sign_requested`, the first event that carries it. */
  async linkCustodyId(op: Operation, operationID: string): Promise<Operation> {
    // One round trip when the record is still `op` as the caller holds it (just created); else read and retry.
    const next: Operation = { ...op, operationID, updatedAt: new Date().toISOString() };
    const keys = [...this.eventKeys(op.id), this.keys.custodyId(operationID)] as const;
    const args = [sha1(JSON.stringify(op)), JSON.stringify(next), ...this.event(next, 'withdrawal.sign_requested'), op.id] as const;
    if ((await LINK_CUSTODY_ID.run(this.redis, keys, args)) === 1) return next;
    // Moved meanwhile. A withdrawal that failed first (a cancel raced the sign request) keeps the
    // id, but its integrators are not told that signing was asked after they were told it failed.
    const linked = await this.write(
      op.id,
      (o) => ({ ...o, operationID, updatedAt: new Date().toISOString() }),
      (o) => (o.status === 'FAILED' ? undefined : 'withdrawal.sign_requested'),
    );
    return linked as Operation;
  }

  /**
   * Re-reads and applies `change` until the compare-and-set wins; `change` returning undefined
   * stops. `eventOf` names the event the write appends with it, if any. `known`, a record as
   * this store returned it, saves the first read: if it is no longer the stored one, the
   * compare-and-set fails and the loop reads.
   */
  private async write(
    id: string,
    change: (op: Operation) => Operation | undefined,
    eventOf: (next: Operation) => WithdrawalEventType | undefined,
    known?: Operation,
    leaving = false,
  ): Promise<Operation | undefined> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const raw = attempt === 0 && known ? JSON.stringify(known) : await this.redis.get(this.keys.operation(id));
      if (!raw) throw new NotFoundError(`operation ${id} not found`);
      const next = change(JSON.parse(raw) as Operation);
      if (!next) return undefined;
      const type = eventOf(next);
      const ev = type ? this.event(next, type) : NO_EVENT;
      if ((await COMPARE_AND_SET.run(this.redis, ...this.casArgs(id, raw, next, ev, leaving))) === 1) return next;
    }
    throw new ConflictError(`operation ${id} changed concurrently`);
  }

  /** Keys and arguments of COMPARE_AND_SET. */
  private casArgs(id: string, raw: string, next: Operation, ev: EventArgs, leaving: boolean) {
    return [
      [...this.eventKeys(id), this.keys.open],
      [sha1(raw), JSON.stringify(next), ...ev, leaving ? '1' : '0', id],
    ] as const;
  }

  /** Read-modify-write of fields that do not change the status (txids, confirmations, attempts). */
  async update(id: string, change: (op: Operation) => Operation, event?: WithdrawalEventType): Promise<Operation> {
    return (await this.write(
      id,
      (current) => ({ ...change(current), status: current.status, updatedAt: new Date().toISOString() }),
      () => event,
    )) as Operation;
  }

  /**
   * Moves the operation to `to` only if its status is one of `from`; returns the new record,
   * or undefined when another actor moved it first. `known` (the record as last read or
   * written here) saves a read when it is still current.
   */
  async transition(
    id: string,
    from: OperationStatus[],
    to: OperationStatus,
    change: (op: Operation) => Partial<Operation> = () => ({}),
    detail?: string,
    known?: Operation,
  ): Promise<Operation | undefined> {
    const at = new Date().toISOString();
    return this.write(
      id,
      (current) => (from.includes(current.status) ? moved(current, to, at, change(current), detail) : undefined),
      () => statusEventType(to),
      known,
      leavesOpen(to),
    );
  }

  /**
   * `transition` of many operations, each from the record as the caller holds it, in one round
   * trip (an account sender's run). An operation whose record changed meanwhile, or any the
   * batch could not write, goes through `transition` on its own. Returns each operation as it
   * is now (moved, or as another actor left it), in the given order.
   */
  async transitionMany(known: Operation[], from: OperationStatus[], to: OperationStatus): Promise<Operation[]> {
    const at = new Date().toISOString();
    const nexts = known.map((op) => (from.includes(op.status) ? moved(op, to, at) : undefined));
    const batch = this.redis.pipeline();
    for (const [i, op] of known.entries()) {
      const next = nexts[i];
      if (next) COMPARE_AND_SET.addTo(batch, ...this.casArgs(op.id, JSON.stringify(op), next, this.event(next, statusEventType(to)), leavesOpen(to)));
    }
    const replies = (await batch.exec()) ?? [];
    let r = 0;
    return Promise.all(
      known.map(async (op, i) => {
        if (!nexts[i]) return (await this.find(op.id)) ?? op;
        const [err, written] = replies[r++] ?? [new Error('no reply')];
        if (!err && written === 1) return nexts[i] as Operation;
        return (await this.transition(op.id, from, to)) ?? (await this.get(op.id));
      }),
    );
  }

  /**
   * Indexes a replacement attempt's digests (and its custody id, once known) to the operation,
   * so its callback finds the operation as the original's does.
   */
  async indexAttempt(id: string, digests: string[], custodyId?: string): Promise<void> {
    const tx = this.redis.multi();
    for (const d of digests) tx.sadd(this.digestKey(d), id);
    if (custodyId) tx.set(this.keys.custodyId(custodyId), id);
    await tx.exec();
  }

  private sigsKey(id: string, attempt: number): string {
    return this.keys.signatures(id, attempt);
  }

  /**
   * Adds verified signatures (of attempt `attempt`, 0 = the original) in one atomic step.
   * `added` counts the payloads this call signed first, so of many concurrent copies of one
   * callback exactly one sees `added > 0`.
   */
  async addSignatures(id: string, sigs: Map<number, StoredSignature>, attempt = 0): Promise<{ added: number; total: number }> {
    const args = [...sigs].flatMap(([index, sig]) => [String(index), JSON.stringify(sig)]);
    const [added, total] = (await ADD_SIGNATURES.run(this.redis, [this.sigsKey(id, attempt)], args)) as [number, number];
    return { added, total };
  }

  async signatures(id: string, attempt = 0): Promise<Map<number, StoredSignature>> {
    return parseSignatures(await this.redis.hgetall(this.sigsKey(id, attempt)));
  }

  /** The operation and the signatures of its original transaction, in one round trip. */
  async withSignatures(id: string): Promise<{ op: Operation; signatures: Map<number, StoredSignature> }> {
    const replies = (await this.redis.pipeline().get(this.keys.operation(id)).hgetall(this.sigsKey(id, 0)).exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const raw = replies[0]?.[1] as string | null;
    return { op: found(id, raw ? (JSON.parse(raw) as Operation) : undefined), signatures: parseSignatures((replies[1]?.[1] ?? {}) as Record<string, string>) };
  }

  async listForVault(vaultId: string, offset: number, limit: number): Promise<{ total: number; items: Operation[] }> {
    const key = this.keys.byVault(vaultId);
    const [total, ids] = await Promise.all([this.redis.zcard(key), this.redis.zrevrange(key, offset, offset + limit - 1)]);
    if (ids.length === 0) return { total, items: [] };
    const raws = await this.redis.mget(ids.map((id) => this.keys.operation(id)));
    return { total, items: raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as Operation) };
  }

  /**
   * Ids of operations created in [fromMs, toMs], newest first, from the vault's index or the
   * index of all operations; `before` continues after the last entry of a previous page.
   */
  async idsNewestFirst(opts: TimePage & { vaultId?: string }): Promise<TimeIndexEntry[]> {
    return idsNewestFirst(this.redis, opts.vaultId ? this.keys.byVault(opts.vaultId) : this.keys.byTime, opts);
  }

  /** Operations by id, in the given order (ids whose record is gone are left out). */
  async many(ids: string[]): Promise<Operation[]> {
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.keys.operation(id)));
    return raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as Operation);
  }

  /**
   * Up to `count` operations not yet broadcast created at or before `beforeMs`, oldest first,
   * going on after `after` (the last entry of a previous page). The cursor is an entry, not an
   * offset: the operations before it leave the index as they are settled.
   */
  async openPage(beforeMs: number, count: number, after?: OpenEntry): Promise<OpenEntry[]> {
    const out: OpenEntry[] = [];
    // Entries of one millisecond come in member order; the ones up to the cursor's id were on earlier pages.
    const isNew = (e: OpenEntry) => after === undefined || e.ms > after.ms || e.id > after.id;
    let offset = 0;
    while (out.length < count) {
      const flat = await this.redis.zrangebyscore(this.keys.open, after?.ms ?? '-inf', beforeMs, 'WITHSCORES', 'LIMIT', offset, count);
      if (flat.length === 0) break;
      offset += flat.length / 2;
      for (let i = 0; i < flat.length; i += 2) {
        const e = { id: flat[i] as string, ms: Number(flat[i + 1]) };
        if (isNew(e) && out.length < count) out.push(e);
      }
    }
    return out;
  }

  /** Where the previous reconciliation run stopped in the open index; undefined: at its start. */
  async reconcileCursor(): Promise<OpenEntry | undefined> {
    const raw = await this.redis.get(this.keys.reconcileCursor);
    return raw ? (JSON.parse(raw) as OpenEntry) : undefined;
  }

  /** Records where reconciliation stopped; undefined sends the next run back to the start. */
  async saveReconcileCursor(at: OpenEntry | undefined): Promise<void> {
    if (at) await this.redis.set(this.keys.reconcileCursor, JSON.stringify(at));
    else await this.redis.del(this.keys.reconcileCursor);
  }
}
