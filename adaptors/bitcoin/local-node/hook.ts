import { everyInterval, type Every } from '../../../src/dev/block-timer.js';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { startBitcoinRegtest } from './index.js';

const BLOCK_INTERVAL_MS = 3000;

/**
 * The `btcregtest` ledger on a fresh bcoin regtest node behind its Esplora facade (its Core
 * JSON-RPC facade answers beside it, at `/core-rpc`), mining a block every few seconds; its
 * mining can be paused, resumed, forced and reorganised (`invalidateblock`). The faucet mines the block that confirms its payment even when paused.
 */
export async function startBitcoinLocalNode(o: { every?: Every } = {}): Promise<LocalLedgerNode> {
  const regtest = await startBitcoinRegtest();
  // The block timer is passed in so a test can play its ticks: the moment a block would be mined.
  const every = o.every ?? everyInterval;
  const startMiner = () => every(() => regtest.mine(1).catch(() => undefined), BLOCK_INTERVAL_MS);
  let stopMiner: (() => void) | undefined = startMiner();
  return {
    ledgerId: 'btcregtest',
    options: { backend: 'esplora', url: regtest.url, confirmations: 1 },
    // The ledger reads the chain through Esplora; the Core JSON-RPC facade answers over the same node for any RPC client.
    description: `btcregtest  bcoin regtest node, Esplora facade ${regtest.url}, Core RPC facade ${regtest.coreRpcUrl} (a block every ${BLOCK_INTERVAL_MS / 1000} s)`,
    faucet: (address, _asset, units) => regtest.faucet(address, units),
    mining: {
      pause: async () => {
        stopMiner?.();
        stopMiner = undefined;
      },
      resume: async () => {
        stopMiner ??= startMiner();
      },
      mine: async (blocks) => void (await regtest.mine(blocks)),
      // The lowest of the last `depth` blocks leaves the best chain with its descendants (their
      // transactions leave the mempool too, as bcoin does), and as many new blocks take their place.
      reorg: async (depth) => {
        const height = regtest.node.height;
        if (depth > height) throw new Error(`the chain has ${height} blocks`);
        const hash = await regtest.node.blockHash(height - depth + 1);
        await regtest.invalidate(hash);
        await regtest.mine(depth);
      },
      state: async () => ({ paused: stopMiner === undefined, height: regtest.node.height }),
    },
    stop: async () => {
      stopMiner?.();
      await regtest.stop();
    },
  };
}
