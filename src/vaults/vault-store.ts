import type { Redis } from 'ioredis';
import { ConflictError, NotFoundError } from '../errors.js';
import type { VaultRecord } from './vault-schema.js';

/** Vault records in Redis: one string key per vault and a sorted index for listing. */
export class VaultStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(vaultId: string): string {
    return `${this.prefix}vault:${vaultId}`;
  }

  private get indexKey(): string {
    return `${this.prefix}vaults`;
  }

  /** Stores a new vault; 409 if the id is taken (re-registering must be an explicit delete first). */
  async create(record: VaultRecord): Promise<void> {
    const ok = await this.redis.set(this.key(record.vaultId), JSON.stringify(record), 'NX');
    if (ok !== 'OK') throw new ConflictError(`Vault '${record.vaultId}' is already registered`, 'ERR_VAULT_EXISTS');
    await this.redis.zadd(this.indexKey, 0, record.vaultId);
  }

  async find(vaultId: string): Promise<VaultRecord | undefined> {
    const text = await this.redis.get(this.key(vaultId));
    return text ? (JSON.parse(text) as VaultRecord) : undefined;
  }

  async get(vaultId: string): Promise<VaultRecord> {
    const record = await this.find(vaultId);
    if (!record) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
    return record;
  }

  async list(offset: number, limit: number): Promise<{ total: number; items: VaultRecord[] }> {
    const [total, ids] = await Promise.all([this.redis.zcard(this.indexKey), this.redis.zrange(this.indexKey, offset, offset + limit - 1)]);
    if (ids.length === 0) return { total, items: [] };
    const texts = await this.redis.mget(ids.map((id) => this.key(id)));
    return { total, items: texts.filter((t): t is string => t !== null).map((t) => JSON.parse(t) as VaultRecord) };
  }

  async remove(vaultId: string): Promise<void> {
    const n = await this.redis.del(this.key(vaultId));
    await this.redis.zrem(this.indexKey, vaultId);
    if (n === 0) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
  }
}
