import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { startLocalSolanaNode } from './index.js';

/** The `solanadev` ledger on a fresh LiteSVM node, with USDC as its demo token. */
export async function startSolanaLocalNode(): Promise<LocalLedgerNode> {
  const node = await startLocalSolanaNode();
  return {
    ledgerId: 'solanadev',
    options: { rpcUrl: node.url, tokens: [node.usdc], commitment: 'finalized', confirmations: 1 },
    description: `solanadev   LiteSVM in-process, JSON-RPC facade ${node.url}, demo SPL ${node.usdc.symbol} mint ${node.usdc.mint}`,
    faucet: async (address, asset, units) => {
      if (asset !== 'SOL' && asset !== node.usdc.symbol) throw new InvalidArgumentError(`The solanadev faucet sends SOL and ${node.usdc.symbol}, not ${asset}`);
      return node.fund(address, asset, units);
    },
    // No pause: the node only produces blocks for transactions and to root them (index.ts).
    mining: {
      mine: async (blocks) => node.facade.advance(blocks),
      state: async () => ({ paused: false, height: node.facade.blockHeight() }),
    },
    stop: node.stop,
  };
}
