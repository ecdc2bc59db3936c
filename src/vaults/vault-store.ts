import type { Redis } from 'ioredis';
import { ConflictError, NotFoundError } from '../platform/errors.js';
import { AddressIndex } from './address-index.js';
import type { Bip44Account, VaultRecord } from './vault-schema.js';
import { vaultKeys, type VaultKeys } from '../platform/redis-keys.js';

const accountField = (a: Pick<Bip44Account, 'coin' | 'account'>) => `${a.coin}/${a.account}`;

/**
 * Vault records in Redis: one string key per vault and a sorted index for listing. A BIP44
 * vault's further accounts live in a hash beside it (`vault:{id}:accounts`, field
 * `coin/account`), so adding one is a single HSETNX and never rewrites the record.
 */
export class VaultStore {
  private readonly keys: VaultKeys;
  /** Derived addresses and last used indexes of the BIP44 accounts, kept beside the records. */
  readonly addresses: AddressIndex;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = vaultKeys(prefix);
    this.addresses = new AddressIndex(redis, this.keys);
  }

  private key(vaultId: string): string {
    return this.keys.vault(vaultId);
  }

  private get indexKey(): string {
    return this.keys.index;
  }

  /** Stores a new vault; 409 if the id is taken (re-registering must be an explicit delete first). */
  async create(record: VaultRecord): Promise<void> {
    const ok = await this.redis.set(this.key(record.vaultId), JSON.stringify(record), 'NX');
    if (ok !== 'OK') throw new ConflictError(`Vault '${record.vaultId}' is already registered`, 'ERR_VAULT_EXISTS');
    await this.redis.zadd(this.indexKey, 0, record.vaultId);
    await this.changed();
  }

  /**
   * The registry's change counter (0 before any change): it moves after every change of what a
   * deposit scanner watches, so a scanner that read the registry at one value need not read it
   * again while the value stays.
   */
  async changes(): Promise<number> {
    return Number((await this.redis.get(this.keys.changes)) ?? 0);
  }

  /** Raised after the change it counts, so whoever reads the new value reads the change too. */
  private async changed(): Promise<void> {
    await this.redis.incr(this.keys.changes);
  }

  /** Adds an account to a registered BIP44 vault; 409 if that coin and account are registered already. */
  async addAccount(record: VaultRecord, account: Bip44Account): Promise<VaultRecord> {
    const taken = () => new ConflictError(`Vault '${record.vaultId}' already has BIP44 coin ${account.coin} account ${account.account}`, 'ERR_VAULT_EXISTS');
    if (record.bip44 && accountField(record.bip44) === accountField(account)) throw taken();
    const added = await this.redis.hsetnx(this.accountsKey(record.vaultId), accountField(account), JSON.stringify(account));
    if (added !== 1) throw taken();
    await this.changed();
    return this.get(record.vaultId);
  }

  private accountsKey(vaultId: string): string {
    return this.keys.accounts(vaultId);
  }

  async find(vaultId: string): Promise<VaultRecord | undefined> {
    const [text, extra] = await Promise.all([this.redis.get(this.key(vaultId)), this.redis.hvals(this.accountsKey(vaultId))]);
    return text ? withAccounts(JSON.parse(text) as VaultRecord, extra) : undefined;
  }

  async get(vaultId: string): Promise<VaultRecord> {
    const record = await this.find(vaultId);
    if (!record) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
    return record;
  }

  /** How many vaults are registered (one ZCARD). */
  async count(): Promise<number> {
    return this.redis.zcard(this.indexKey);
  }

  async list(offset: number, limit: number): Promise<{ total: number; items: VaultRecord[] }> {
    const [total, ids] = await Promise.all([this.redis.zcard(this.indexKey), this.redis.zrange(this.indexKey, offset, offset + limit - 1)]);
    if (ids.length === 0) return { total, items: [] };
    const texts = await this.redis.mget(ids.map((id) => this.key(id)));
    const extras = await Promise.all(ids.map((id) => this.redis.hvals(this.accountsKey(id))));
    const items = texts.flatMap((t, i) => (t === null ? [] : [withAccounts(JSON.parse(t) as VaultRecord, extras[i] ?? [])]));
    return { total, items };
  }

  async remove(vaultId: string): Promise<void> {
    const record = await this.find(vaultId);
    await this.addresses.remove(vaultId, record?.accounts ?? []);
    const n = await this.redis.del(this.key(vaultId), this.accountsKey(vaultId));
    await this.redis.zrem(this.indexKey, vaultId);
    if (n === 0) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
    await this.changed();
  }
}

/** A BIP44 record with its accounts listed, the first-registered one first. */
function withAccounts(record: VaultRecord, extra: string[]): VaultRecord {
  if (record.kind !== 'bip44' || !record.bip44) return record;
  const more = extra.map((t) => JSON.parse(t) as Bip44Account).sort((a, b) => accountField(a).localeCompare(accountField(b), undefined, { numeric: true }));
  return { ...record, accounts: [record.bip44, ...more] };
}
