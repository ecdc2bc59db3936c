import type { LedgerHealth } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { GENESIS_HASHES } from '../ledgers.js';

/** Back end reachable, its height, whether its genesis block is the configured network's, and (Core) whether its txindex is on and synced. */
export async function health(ctx: BtcContext): Promise<LedgerHealth> {
  try {
    const [height, genesis] = await Promise.all([ctx.backend.tipHeight(), ctx.backend.genesisHash()]);
    const expected = GENESIS_HASHES[ctx.networkName];
    const network = Object.entries(GENESIS_HASHES).find(([, h]) => h === genesis)?.[0] ?? `genesis ${genesis}`;
    if (genesis !== expected) {
      return { healthy: false, wrongNetwork: true, height, network, errorMessage: `back end is on ${network}, expected ${ctx.networkName}` };
    }
    // Core without a synced txindex answers -5 for every mined transaction: it cannot follow withdrawals.
    const indexProblem = await ctx.backend.indexProblem?.();
    if (indexProblem) return { healthy: false, height, network, errorMessage: indexProblem };
    return { healthy: true, height, network };
  } catch (e) {
    return { healthy: false, errorMessage: (e as Error).message };
  }
}
