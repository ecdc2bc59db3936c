import type { Every } from '../../../src/dev/block-timer.js';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { anvilMining } from './anvil-mining.js';
import { DevChainFunder } from './dev-chain.js';
import { startAnvil } from './local-anvil.js';

const BLOCK_INTERVAL_MS = 2000;
/** Recent states anvil keeps: `anvil_reorg` (POST /sandbox/mining) replaces at most this many blocks. */
const REORG_DEPTH = 64;

/**
 * The `ethdev` ledger on a fresh anvil chain (a block every 2 s, and one for each transaction),
 * with a demo ERC-20 deployed; its mining can be paused, resumed, forced and reorganised.
 */
export async function startEthereumLocalNode(o: { every?: Every } = {}): Promise<LocalLedgerNode> {
  const anvil = await startAnvil({ keepStates: REORG_DEPTH });
  const funder = new DevChainFunder(anvil.url);
  let stopMining: (() => void) | undefined;
  const stop = async () => {
    stopMining?.();
    funder.destroy();
    await anvil.stop();
  };
  try {
    const token = await funder.deployDemoToken();
    // The block timer is passed in so a test can play its ticks: the moment a block would be mined.
    const anvilControls = anvilMining(anvil.url, { intervalMs: BLOCK_INTERVAL_MS, every: o.every });
    stopMining = anvilControls.stop;
    const mining = {
      pause: anvilControls.pause,
      resume: anvilControls.resume,
      mine: anvilControls.mine,
      // A reorganisation drops the transactions of the replaced blocks, the faucet's too: it counts its nonces again from the node.
      reorg: async (depth: number) => {
        await anvilControls.reorg?.(depth);
        funder.resetNonce();
      },
      state: anvilControls.state,
    };
    return {
      ledgerId: 'ethdev',
      options: { rpcUrl: anvil.url, tokens: [token], confirmations: 1 },
      // Deposits count at 2 blocks, so one reorganised away on demand (POST /sandbox/mining reorg) is REVERTED, not confirmed first.
      depositConfirmations: 2,
      description: `ethdev      anvil JSON-RPC ${anvil.url} (chain 31337), demo ERC-20 ${token.symbol} at ${token.contract}`,
      // While mining is paused a payment waits in anvil's pool: the faucet answers with its hash at once.
      faucet: async (address, asset, units) => {
        const wait = !(await mining.state()).paused;
        return asset === token.symbol ? funder.sendToken(token.contract, address, units, wait) : funder.sendEth(address, units, wait);
      },
      mining,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
