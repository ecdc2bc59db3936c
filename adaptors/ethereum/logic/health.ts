import type { LedgerHealth } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';

/** Node reachable, its height, and whether its chain id is the configured one. */
export async function health(ctx: EthContext): Promise<LedgerHealth> {
  try {
    const [chainIdHex, heightHex] = await ctx.rpc.batch<string>([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_blockNumber', params: [] },
    ]);
    const chainId = Number(BigInt(chainIdHex as string));
    const height = Number(BigInt(heightHex as string));
    if (chainId !== ctx.chainId) {
      return { healthy: false, wrongNetwork: true, height, network: `chain ${chainId}`, errorMessage: `node is on chain ${chainId}, expected ${ctx.chainId}` };
    }
    return { healthy: true, height, network: `chain ${chainId}` };
  } catch (e) {
    return { healthy: false, errorMessage: (e as Error).message };
  }
}
