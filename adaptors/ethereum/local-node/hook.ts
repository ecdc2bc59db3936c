import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { DevChainFunder } from './dev-chain.js';
import { startAnvil } from './local-anvil.js';

/** The `ethdev` ledger on a fresh anvil chain (a block every 2 s), with a demo ERC-20 deployed. */
export async function startEthereumLocalNode(): Promise<LocalLedgerNode> {
  const anvil = await startAnvil({ blockTime: 2, mixedMining: true });
  const funder = new DevChainFunder(anvil.url);
  const stop = async () => {
    funder.destroy();
    await anvil.stop();
  };
  try {
    const token = await funder.deployDemoToken();
    return {
      ledgerId: 'ethdev',
      options: { rpcUrl: anvil.url, tokens: [token], confirmations: 1 },
      description: `ethdev      anvil JSON-RPC ${anvil.url} (chain 31337), demo ERC-20 ${token.symbol} at ${token.contract}`,
      faucet: (address, asset, units) => (asset === token.symbol ? funder.sendToken(token.contract, address, units) : funder.sendEth(address, units)),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
