import type { LedgerHealth } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { GENESIS_HASHES } from '../ledgers.js';

/** Back end reachable, its height, and whether its genesis block is the configured network's. */
export async function health(ctx: BtcContext): Promise<LedgerHealth> {
  try {
    const [height, genesis] = await Promise.all([ctx.backend.tipHeight(), ctx.backend.genesisHash()]);
    const expected = GENESIS_HASHES[ctx.networkName];
    const network = Object.entries(GENESIS_HASHES).find(([, h]) => h === genesis)?.[0] ?? `genesis ${genesis}`;
    if (genesis !== expected) {
      return { healthy: false, wrongNetwork: true, height, network, errorMessage: `back end is on ${network}, expected ${ctx.networkName}` };
    }
    return { healthy: true, height, network };
  } catch (e) {
    return { healthy: false, errorMessage: (e as Error).message };
  }
}
