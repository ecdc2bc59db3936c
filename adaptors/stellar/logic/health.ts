import type { LedgerHealth } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';

/** Horizon reachable, its latest ledger, and whether it serves the configured network. */
export async function health(ctx: StellarContext): Promise<LedgerHealth> {
  try {
    const root = await ctx.horizon.root();
    const height = root.history_latest_ledger;
    const network = root.network_passphrase;
    if (network !== ctx.passphrase) {
      return { healthy: false, wrongNetwork: true, height, network, errorMessage: `Horizon serves '${network}', expected '${ctx.passphrase}'` };
    }
    return { healthy: true, height, network };
  } catch (e) {
    return { healthy: false, errorMessage: (e as Error).message };
  }
}
