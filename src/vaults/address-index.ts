import { createHash } from 'node:crypto';
import { luaScript } from '../platform/redis-script.js';
import type { Redis } from 'ioredis';
import type { Bip44Account } from './vault-schema.js';
import type { VaultKeys } from '../platform/redis-keys.js';

/** The receive (0) and change (1) chains of a BIP44 account. */
export type Chain = 0 | 1;

/** One chain as last scanned: its derived addresses from index 0 and the highest index seen used (-1: none). */
export interface ChainState {
  /** `[address, compressed public key hex]` by index, contiguous from 0. */
  derived: [string, string][];
  lastUsed: number;
}

export interface AccountState {
  chains: Record<Chain, ChainState>;
}

/** What identifies the addresses: a re-registration under the same id with another key or format starts afresh. */
function fingerprint(ledgerId: string, addressFormat: string | undefined, account: Bip44Account): string {
  return createHash('sha256')
    .update([ledgerId, addressFormat ?? '', account.publicKey.toLowerCase(), account.cpar.toLowerCase()].join('|'))
    .digest('hex')
    .slice(0, 32);
}

/**
 * Raises `used:<chain>` to the given index, never lowers it: a used address stays part of the
 * vault, and two scans finishing in either order leave the higher mark. A hash of another
 * fingerprint (the vault re-registered with another key or format) is dropped first. A mark
 * raised, or a hash dropped, moves what a deposit scanner watches: the registry's change counter
 * is raised with it. Addresses derived within the watched window change nothing there.
 */
const RAISE = luaScript(
  { keys: ['index', 'changes'], args: ['fingerprint', '...field, value'], returns: 'nothing' },
  `
local moved = false
local fp = redis.call('HGET', KEYS[1], 'fp')
if fp and fp ~= ARGV[1] then
  redis.call('DEL', KEYS[1])
  moved = true
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1])
for i = 2, #ARGV, 2 do
  local field = ARGV[i]
  local value = ARGV[i + 1]
  if string.sub(field, 1, 5) == 'used:' then
    local had = tonumber(redis.call('HGET', KEYS[1], field) or '-1')
    if tonumber(value) > had then
      redis.call('HSET', KEYS[1], field, value)
      moved = true
    end
  else
    redis.call('HSET', KEYS[1], field, value)
  end
end
if moved then redis.call('INCR', KEYS[2]) end
`,
);

/**
 * Per BIP44 account, the addresses derived so far and the last used index of each chain, in
 * one Redis hash (fields `fp`, `used:<chain>`, `<chain>:<index>` → `address publicKeyHex`).
 * A scan then starts past the last used index instead of at 0, so its back-end work covers
 * only addresses that may have become used since, whatever the vault's history.
 */
export class AddressIndex {
  constructor(
    private readonly redis: Redis,
    private readonly keys: VaultKeys,
  ) {}

  async read(vaultId: string, ledgerId: string, addressFormat: string | undefined, account: Bip44Account): Promise<AccountState> {
    const fields = await this.redis.hgetall(this.keys.addressIndex(vaultId, account.coin, account.account));
    const empty = (): ChainState => ({ derived: [], lastUsed: -1 });
    const state: AccountState = { chains: { 0: empty(), 1: empty() } };
    if (fields.fp !== fingerprint(ledgerId, addressFormat, account)) return state;
    for (const chain of [0, 1] as const) {
      const derived = state.chains[chain].derived;
      // Only the contiguous run from 0 counts: a gap (a write cut short) is derived again.
      for (let i = 0; ; i++) {
        const entry = fields[`${chain}:${i}`];
        if (entry === undefined) break;
        const [address, publicKey] = entry.split(' ');
        if (!address || !publicKey) break;
        derived.push([address, publicKey]);
      }
      const used = Number(fields[`used:${chain}`] ?? -1);
      state.chains[chain].lastUsed = Math.min(Number.isSafeInteger(used) ? used : -1, derived.length - 1);
    }
    return state;
  }

  /** Adds newly derived addresses (from index `from` of each chain) and raises the last used marks. */
  async write(
    vaultId: string,
    ledgerId: string,
    addressFormat: string | undefined,
    account: Bip44Account,
    update: Record<Chain, { from: number; derived: [string, string][]; lastUsed: number }>,
  ): Promise<void> {
    const args: [string, ...string[]] = [fingerprint(ledgerId, addressFormat, account)];
    for (const chain of [0, 1] as const) {
      const u = update[chain];
      u.derived.forEach(([address, publicKey], i) => args.push(`${chain}:${u.from + i}`, `${address} ${publicKey}`));
      args.push(`used:${chain}`, String(u.lastUsed));
    }
    await RAISE.run(this.redis, [this.keys.addressIndex(vaultId, account.coin, account.account), this.keys.changes], args);
  }

  /** Forgets a vault's indexes (on removal), one per account. */
  async remove(vaultId: string, accounts: Pick<Bip44Account, 'coin' | 'account'>[]): Promise<void> {
    if (accounts.length) await this.redis.del(...accounts.map((a) => this.keys.addressIndex(vaultId, a.coin, a.account)));
  }
}
