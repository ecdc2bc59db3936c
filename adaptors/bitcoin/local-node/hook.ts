import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { startBitcoinRegtest } from './index.js';

const BLOCK_INTERVAL_MS = 3000;

/** The `btcregtest` ledger on a fresh bcoin regtest node behind its Esplora facade, mining a block every few seconds. */
export async function startBitcoinLocalNode(): Promise<LocalLedgerNode> {
  const regtest = await startBitcoinRegtest();
  const miner = setInterval(() => void regtest.mine(1).catch(() => undefined), BLOCK_INTERVAL_MS);
  return {
    ledgerId: 'btcregtest',
    options: { backend: 'esplora', url: regtest.url, confirmations: 1 },
    description: `btcregtest  bcoin regtest node, Esplora facade ${regtest.url} (a block every ${BLOCK_INTERVAL_MS / 1000} s)`,
    faucet: (address, _asset, units) => regtest.faucet(address, units),
    stop: async () => {
      clearInterval(miner);
      await regtest.stop();
    },
  };
}
