import type { LedgerAdaptor } from '../ledger/adaptor.js';
import type { LedgerRegistry } from '../ledger/registry.js';
import { ConfigError } from '../platform/config-error.js';

/**
 * The ledgers a process scans for deposits: those `DEPOSIT_LEDGERS` lists (`[]`: none), or
 * every configured ledger with a deposit source when it is unset. Checked here rather than
 * with the other settings because whether a ledger has a source is known only once its
 * adaptor exists (a family's source can depend on the back end configured). A listed
 * id that is not such a ledger stops the start, naming the valid ones.
 */
export function scannedLedgers(registry: LedgerRegistry, listed: readonly string[] | undefined): LedgerAdaptor[] {
  const withSource = registry.list().filter((a) => a.depositSource);
  if (listed === undefined) return withSource;
  const problems: string[] = [];
  const out: LedgerAdaptor[] = [];
  for (const id of listed) {
    const adaptor = registry.find(id);
    if (adaptor?.depositSource) {
      if (!out.includes(adaptor)) out.push(adaptor);
      continue;
    }
    const why = adaptor ? 'has no deposit source' : 'is not a configured ledger';
    const valid = withSource.map((a) => a.ledgerId);
    problems.push(
      `DEPOSIT_LEDGERS: '${id}' ${why}. Valid values: ${valid.length ? `ledger ids from ${valid.join(', ')}, comma-separated, or none` : 'none (no configured ledger has a deposit source)'}`,
    );
  }
  if (problems.length) throw new ConfigError(problems);
  return out;
}
