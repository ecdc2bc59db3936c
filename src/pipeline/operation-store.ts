import type { Redis } from 'ioredis';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Operation, OperationStatus } from './operation.js';

export interface StoredSignature {
  signature: string;
  recoveryId: 0 | 1;
}

/**
 * Durable operation records in Redis.
 *
 * Keys (all under the configured prefix):
 * - `op:{id}`            the operation JSON
 * - `op:{id}:sigs`       hash payload index → verified signature (partial sets accumulate)
 * - `op:{id}:sigs:{n}`   the same for replacement attempt n (speed-up, cancel)
 * - `opid:{operationID}` custody operation id → internal id
 * - `digest:{hex}`       digest → internal id (callbacks are matched by what we stored)
 * - `vault-ops:{vault}`  sorted set of a vault's operations by creation time
 * - `open-ops`           sorted set of operations not yet broadcast (EXECUTING, SIGNED), for reconciliation
 *
 * Every write is a compare-and-set on the whole stored record (re-read and re-applied when
 * another actor wrote first), so two workers, a worker and the reconciler, or a worker and a
 * speed-up request never overwrite each other's change; `transition` also checks the status.
 */
/** Writes ARGV[2] only if the record is still exactly ARGV[1]: a compare-and-set on the whole record. */
const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

export class OperationStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private k(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  /** Stores a new operation with its digest index, atomically. */
  async create(op: Operation): Promise<void> {
    const tx = this.redis.multi();
    tx.set(this.k('op', op.id), JSON.stringify(op), 'NX');
    for (const p of op.unsigned.payloads) tx.set(this.k('digest', p.digest), op.id);
    tx.zadd(this.k('vault-ops', op.vaultId), Date.parse(op.createdAt), op.id);
    tx.zadd(this.k('open-ops'), Date.parse(op.createdAt), op.id);
    const results = await tx.exec();
    if (results?.[0]?.[1] !== 'OK') throw new ConflictError(`operation ${op.id} exists`);
  }

  async find(id: string): Promise<Operation | undefined> {
    const raw = await this.redis.get(this.k('op', id));
    return raw ? (JSON.parse(raw) as Operation) : undefined;
  }

  /** Re-reads and applies `change` until the compare-and-set wins; `change` returning undefined stops. */
  private async write(id: string, change: (op: Operation) => Operation | undefined): Promise<Operation | undefined> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const raw = await this.redis.get(this.k('op', id));
      if (!raw) throw new NotFoundError(`operation ${id} not found`);
      const next = change(JSON.parse(raw) as Operation);
      if (!next) return undefined;
      if ((await this.redis.eval(COMPARE_AND_SET, 1, this.k('op', id), raw, JSON.stringify(next))) === 1) return next;
    }
    throw new ConflictError(`operation ${id} changed concurrently`);
  }

  async get(id: string): Promise<Operation> {
    const op = await this.find(id);
    if (!op) throw new NotFoundError(`operation ${id} not found`);
    return op;
  }

  /** Resolves a client-facing id (custody operationID, or the internal id before signing began). */
  async resolve(operationID: string): Promise<Operation | undefined> {
    const id = (await this.redis.get(this.k('opid', operationID))) ?? operationID;
    return this.find(id);
  }

  /** The operation of each digest, in one round trip (a callback carries one per payload). */
  async idsForDigests(digests: string[]): Promise<(string | null)[]> {
    return this.redis.mget(digests.map((d) => this.k('digest', d.toLowerCase())));
  }

  async linkCustodyId(op: Operation, operationID: string): Promise<Operation> {
    await this.redis.set(this.k('opid', operationID), op.id);
    return this.update(op.id, (o) => ({ ...o, operationID }));
  }

  /** Read-modify-write of fields that do not change the status (txids, confirmations, attempts). */
  async update(id: string, change: (op: Operation) => Operation): Promise<Operation> {
    return (await this.write(id, (current) => ({ ...change(current), status: current.status, updatedAt: new Date().toISOString() }))) as Operation;
  }

  /**
   * Moves the operation to `to` only if its status is one of `from`; returns the new record,
   * or undefined when another actor moved it first.
   */
  async transition(
    id: string,
    from: OperationStatus[],
    to: OperationStatus,
    change: (op: Operation) => Partial<Operation> = () => ({}),
    detail?: string,
  ): Promise<Operation | undefined> {
    const at = new Date().toISOString();
    const next = await this.write(id, (current) =>
      from.includes(current.status)
        ? {
            ...current,
            ...change(current),
            status: to,
            updatedAt: at,
            history: [...current.history, { status: to, at, ...(detail ? { detail } : {}) }],
          }
        : undefined,
    );
    if (!next) return undefined;
    if (to !== 'EXECUTING' && to !== 'SIGNED') await this.redis.zrem(this.k('open-ops'), id);
    return next;
  }

  /**
   * Indexes a replacement attempt's digests (and its custody id, once known) to the operation,
   * so its callback finds the operation as the original's does.
   */
  async indexAttempt(id: string, digests: string[], custodyId?: string): Promise<void> {
    const tx = this.redis.multi();
    for (const d of digests) tx.set(this.k('digest', d), id);
    if (custodyId) tx.set(this.k('opid', custodyId), id);
    await tx.exec();
  }

  private sigsKey(id: string, attempt: number): string {
    return attempt === 0 ? this.k('op', id, 'sigs') : this.k('op', id, 'sigs', String(attempt));
  }

  /** Adds verified signatures (of attempt `attempt`, 0 = the original); returns how many distinct payloads are now signed. */
  async addSignatures(id: string, sigs: Map<number, StoredSignature>, attempt = 0): Promise<number> {
    const key = this.sigsKey(id, attempt);
    const tx = this.redis.multi();
    for (const [index, sig] of sigs) tx.hsetnx(key, String(index), JSON.stringify(sig));
    tx.hlen(key);
    const results = await tx.exec();
    return Number(results?.[results.length - 1]?.[1] ?? 0);
  }

  async signatures(id: string, attempt = 0): Promise<Map<number, StoredSignature>> {
    const all = await this.redis.hgetall(this.sigsKey(id, attempt));
    return new Map(Object.entries(all).map(([i, v]) => [Number(i), JSON.parse(v) as StoredSignature]));
  }

  async listForVault(vaultId: string, offset: number, limit: number): Promise<{ total: number; items: Operation[] }> {
    const key = this.k('vault-ops', vaultId);
    const [total, ids] = await Promise.all([this.redis.zcard(key), this.redis.zrevrange(key, offset, offset + limit - 1)]);
    if (ids.length === 0) return { total, items: [] };
    const raws = await this.redis.mget(ids.map((id) => this.k('op', id)));
    return { total, items: raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as Operation) };
  }

  /** Operations not yet broadcast that were created before `beforeMs`. */
  async openBefore(beforeMs: number, limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(this.k('open-ops'), 0, beforeMs, 'LIMIT', 0, limit);
  }
}
