import type { LedgerHealth } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';

/** RPC reachable, its slot, and for the public networks whether its genesis hash is theirs. */
export async function health(ctx: SolanaContext): Promise<LedgerHealth> {
  try {
    const height = await ctx.rpc.getSlot('confirmed');
    if (!ctx.genesisHash) return { healthy: true, height };
    const network = await ctx.rpc.getGenesisHash();
    if (network !== ctx.genesisHash)
      return { healthy: false, wrongNetwork: true, height, network, errorMessage: `RPC serves genesis ${network}, expected ${ctx.genesisHash}` };
    return { healthy: true, height, network };
  } catch (e) {
    return { healthy: false, errorMessage: (e as Error).message };
  }
}
