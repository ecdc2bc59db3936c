import { unknownValue } from '../errors.js';
import type { Config } from '../config/load-config.js';
import type { AdaptorDeps, AssetInfo, LedgerAdaptor } from './adaptor.js';

/** The configured ledgers, one adaptor each, looked up by id (case-insensitive, as custody sends upper case). */
export class LedgerRegistry {
  private readonly byId = new Map<string, LedgerAdaptor>();

  constructor(adaptors: LedgerAdaptor[]) {
    for (const a of adaptors) this.byId.set(a.ledgerId.toLowerCase(), a);
  }

  static fromConfig(config: Pick<Config, 'ledgerConfigs'>, deps: AdaptorDeps): LedgerRegistry {
    return new LedgerRegistry(config.ledgerConfigs.map((l) => l.family.create(l.ledgerId, l.options, deps)));
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }

  list(): LedgerAdaptor[] {
    return [...this.byId.values()];
  }

  /** The adaptor for `ledgerId`, or 422 naming the configured ledgers. */
  get(ledgerId: string): LedgerAdaptor {
    const adaptor = this.byId.get(String(ledgerId).toLowerCase());
    if (!adaptor) throw unknownValue('ledger', ledgerId, this.ids());
    return adaptor;
  }
}

/** Resolves asset symbols for a ledger (all of its assets when none are asked for), or 422 naming the valid ones. */
export function resolveAssets(adaptor: LedgerAdaptor, symbols: string[] | undefined): AssetInfo[] {
  const all = adaptor.assets();
  if (!symbols || symbols.length === 0) return all;
  return symbols.map((s) => {
    const found = all.find((a) => a.symbol === s) ?? all.find((a) => a.symbol.toLowerCase() === s.toLowerCase());
    if (!found) throw unknownValue(`asset for ledger ${adaptor.ledgerId}`, s, all.map((a) => a.symbol));
    return found;
  });
}
