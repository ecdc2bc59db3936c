import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ConflictError, InvalidArgumentError } from '../errors.js';

const KEY = /^[\w.:-]{1,128}$/;
const TTL_SECONDS = 24 * 60 * 60;

interface Entry {
  hash: string;
  operationId?: string;
}

/**
 * `Idempotency-Key` for withdrawals: a client that retries a POST after a timeout gets the
 * withdrawal it already made instead of a second one. Keys live 24 h per vault; a key reused
 * with another body is a 409, and so is a retry while the first request is still running.
 */
export class Idempotency {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /**
   * Runs `create` once per (vault, key). Returns the id it produced, or the id a previous
   * request with the same key and body produced.
   */
  async run(vaultId: string, key: string | undefined, body: unknown, create: () => Promise<string>): Promise<string> {
    if (key === undefined) return create();
    if (!KEY.test(key)) throw new InvalidArgumentError('Idempotency-Key must be 1-128 letters, digits, or . _ : -');
    const redisKey = `${this.prefix}idem:${vaultId}:${key}`;
    const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    const claimed = await this.redis.set(redisKey, JSON.stringify({ hash } satisfies Entry), 'EX', TTL_SECONDS, 'NX');
    if (claimed !== 'OK') {
      const entry = JSON.parse((await this.redis.get(redisKey)) ?? '{}') as Partial<Entry>;
      if (entry.hash !== hash) throw new ConflictError('This Idempotency-Key was used with a different request', 'ERR_IDEMPOTENCY_MISMATCH');
      if (!entry.operationId) throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly', 'ERR_IDEMPOTENCY_IN_PROGRESS');
      return entry.operationId;
    }
    try {
      const operationId = await create();
      await this.redis.set(redisKey, JSON.stringify({ hash, operationId } satisfies Entry), 'EX', TTL_SECONDS);
      return operationId;
    } catch (e) {
      // Nothing was accepted: the client may retry with the same key.
      await this.redis.del(redisKey);
      throw e;
    }
  }
}
