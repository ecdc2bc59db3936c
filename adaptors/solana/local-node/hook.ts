import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { startLocalSolanaNode } from './index.js';

/** The `solanadev` ledger on a fresh LiteSVM node, with USDC as its demo token. */
export async function startSolanaLocalNode(): Promise<LocalLedgerNode> {
  const node = await startLocalSolanaNode();
  return {
    ledgerId: 'solanadev',
    options: { rpcUrl: node.url, tokens: [node.usdc], commitment: 'finalized', confirmations: 1 },
    description: `solanadev   LiteSVM in-process, JSON-RPC facade ${node.url}, demo SPL ${node.usdc.symbol} mint ${node.usdc.mint}`,
    faucet: (address, asset, units) => node.fund(address, asset, units),
    stop: node.stop,
  };
}
