import type { Logger } from 'pino';
import type { LedgerRegistry } from './registry.js';

export class WrongNetworkError extends Error {
  constructor(readonly problems: string[]) {
    super(`Ledger back ends serve another network than configured:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'WrongNetworkError';
  }
}

/**
 * At start, every ledger's back end is asked which network it serves. A back end on the
 * wrong network (mainnet id pointed at a testnet node, say) stops the process: building
 * transactions for one chain against another's state is never right. An unreachable back
 * end only warns; it may come up later, and `/status` shows it.
 */
export async function checkLedgerNetworks(registry: LedgerRegistry, logger: Logger): Promise<void> {
  const results = await Promise.all(registry.list().map(async (a) => ({ id: a.ledgerId, health: await a.health() })));
  const wrong = results.filter((r) => r.health.wrongNetwork).map((r) => `${r.id}: ${r.health.errorMessage ?? 'wrong network'}`);
  for (const r of results) {
    if (!r.health.healthy && !r.health.wrongNetwork) logger.warn({ ledgerId: r.id, error: r.health.errorMessage }, 'ledger back end not reachable at start');
  }
  if (wrong.length) throw new WrongNetworkError(wrong);
}
