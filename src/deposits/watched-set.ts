import type { LedgerAdaptor } from '../ledger/adaptor.js';
import type { VaultStore } from '../vaults/vault-store.js';
import type { VaultRecord } from '../vaults/vault-schema.js';
import { watchAddresses, type WatchedAddress } from '../vaults/watch-addresses.js';

const PAGE = 500;

/** A watched address with the record of its vault (to raise a BIP44 account's used mark). */
export interface Watched extends WatchedAddress {
  record: VaultRecord;
}

/**
 * The addresses of one ledger's registered vaults, as the scanner looks transfers up: one map
 * from the address (as the source normalises it) to its vault. Built from the vault registry;
 * about 470 bytes an address (measured by `npm run bench -- --only=deposits`, docs/performance.md).
 */
export class WatchedSet {
  private map = new Map<string, Watched>();
  private builtAt = 0;
  private vaultCount = -1;
  private changes = -1;
  private stale = true;

  constructor(
    private readonly adaptor: LedgerAdaptor,
    private readonly vaults: VaultStore,
    private readonly opts: { gapLimit: number; refreshMs: number; normalize: (address: string) => string },
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(address: string): Watched | undefined {
    return this.map.get(this.opts.normalize(address));
  }

  /** The next `refresh` reads the registry again (a BIP44 address was used: the window moves). */
  invalidate(): void {
    this.stale = true;
  }

  /**
   * Reads the registry again when it changed (its change counter moved, or a vault more or
   * less), when marked stale, or after `refreshMs`, which only catches a writer that does not
   * count its changes (an older version of the service during a rolling upgrade). Returns the
   * ids of vaults that were not watched before (a back-fill's business), empty on the first
   * build. A map rebuilt although nothing changed was the scanning worker's largest allocation:
   * with 10,000 vaults, every 30 s, it kept the worker's heap from shrinking (docs/performance.md).
   */
  async refresh(now = Date.now()): Promise<string[]> {
    const [count, changes] = await Promise.all([this.vaults.count(), this.vaults.changes()]);
    if (!this.stale && count === this.vaultCount && changes === this.changes && now - this.builtAt < this.opts.refreshMs) return [];
    const before = new Set([...this.map.values()].map((w) => w.vaultId));
    const first = this.vaultCount < 0;
    const next = new Map<string, Watched>();
    for (let offset = 0; ; offset += PAGE) {
      const { items } = await this.vaults.list(offset, PAGE);
      for (const record of items) {
        if (record.ledgerId !== this.adaptor.ledgerId) continue;
        for (const w of await watchAddresses(this.adaptor, record, this.opts.gapLimit, this.vaults.addresses)) {
          next.set(this.opts.normalize(w.address), { ...w, record });
        }
      }
      if (items.length < PAGE) break;
    }
    this.map = next;
    this.builtAt = now;
    this.vaultCount = count;
    this.changes = changes;
    this.stale = false;
    if (first) return [];
    return [...new Set([...next.values()].map((w) => w.vaultId))].filter((v) => !before.has(v));
  }
}
