import { InvalidArgumentError, unknownValue } from '../platform/errors.js';
import type { AddressCodec, AdaptorDeps, AssetInfo, LedgerAdaptor, LedgerFamily } from './adaptor.js';

/** One configured ledger: its id, its family and the options the family's schema checked. */
export interface LedgerConfig {
  ledgerId: string;
  family: LedgerFamily;
  options: unknown;
}

/**
 * The configured ledgers, one adaptor each, looked up by id (case-insensitive, as custody sends
 * upper case), and the built-in ids of every known family, which answer pure address
 * operations even when no back end is configured for them.
 */
export class LedgerRegistry {
  private readonly byId = new Map<string, LedgerAdaptor>();
  private readonly codecs = new Map<string, AddressCodec>();

  constructor(adaptors: LedgerAdaptor[], families: readonly LedgerFamily[] = []) {
    for (const a of adaptors) this.byId.set(a.ledgerId.toLowerCase(), a);
    for (const f of families) {
      for (const id of f.knownLedgers) {
        const codec = f.addressCodec?.(id);
        if (codec) this.codecs.set(id.toLowerCase(), codec);
      }
    }
  }

  static fromConfig(config: { ledgerConfigs: readonly LedgerConfig[]; families: readonly LedgerFamily[] }, deps: AdaptorDeps): LedgerRegistry {
    return new LedgerRegistry(
      config.ledgerConfigs.map((l) => l.family.create(l.ledgerId, l.options, deps)),
      config.families,
    );
  }

  /** Configured ledger ids. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** Built-in ids of the known families, configured or not. */
  builtInIds(): string[] {
    return [...this.codecs.keys()];
  }

  /** Every id this service answers for in some way: configured first, then the other built-in ones. */
  knownIds(): string[] {
    return [...new Set([...this.ids(), ...this.builtInIds()])];
  }

  list(): LedgerAdaptor[] {
    return [...this.byId.values()];
  }

  /** The configured adaptor, or undefined (no error) for an id without a back end. */
  find(ledgerId: string): LedgerAdaptor | undefined {
    return this.byId.get(String(ledgerId).toLowerCase());
  }

  /**
   * The adaptor for `ledgerId`, or 422 naming the configured ledgers. A built-in id without a
   * back end gets its own message: the id is right, this service just cannot reach that ledger.
   */
  get(ledgerId: string): LedgerAdaptor {
    const adaptor = this.find(ledgerId);
    if (adaptor) return adaptor;
    if (this.codecs.has(String(ledgerId).toLowerCase())) {
      const valid = this.ids();
      throw new InvalidArgumentError(
        `Ledger '${ledgerId}' is built in, but no back end is configured for it on this service, and this operation needs one. ` +
          `Configured ledgers: ${valid.length ? valid.join(', ') : '(none configured)'}`,
        { valid, notConfigured: true },
      );
    }
    throw unknownValue('ledger', ledgerId, this.ids());
  }

  /** Pure address operations: the configured adaptor's, else the built-in id's; 422 naming both kinds otherwise. */
  addressCodec(ledgerId: string): AddressCodec {
    const id = String(ledgerId).toLowerCase();
    const codec = this.byId.get(id) ?? this.codecs.get(id);
    if (!codec) throw unknownValue('ledger', ledgerId, this.knownIds());
    return codec;
  }
}

/** Every asset of a ledger, for the explicit "all assets" request. */
export const ALL_ASSETS = '*';

/**
 * Resolves asset symbols for a ledger, or 422 naming the valid ones. None asked: the native
 * asset (the spec's "default is the ledger's default asset"); `*`: every asset of the ledger.
 * An asset asked twice (`ETH,ETH`, or `ETH` and `eth`, which resolve alike) comes back once:
 * balances are summed per asset, so a repeat would report twice what is held.
 */
export function resolveAssets(adaptor: LedgerAdaptor, symbols: string[] | undefined): AssetInfo[] {
  const all = adaptor.assets();
  if (!symbols || symbols.length === 0) return [adaptor.nativeAsset];
  if (symbols.includes(ALL_ASSETS)) {
    if (symbols.some((s) => s !== ALL_ASSETS)) throw new InvalidArgumentError(`assets: '${ALL_ASSETS}' (every asset) cannot be combined with symbols`);
    return all;
  }
  const resolved = symbols.map((s) => {
    const found = all.find((a) => a.symbol === s) ?? all.find((a) => a.symbol.toLowerCase() === s.toLowerCase());
    if (!found) throw unknownValue(`asset for ledger ${adaptor.ledgerId}`, s, [...all.map((a) => a.symbol), ALL_ASSETS]);
    return found;
  });
  return [...new Set(resolved)];
}
