/** The three ledger families on their real local nodes, for the fault tests that run per family. */
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { startStellarLedger, type LocalStellarLedger } from '../../adaptors/stellar/local-node/index.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';

export interface ThreeNodes {
  chain: TestChain;
  regtest: BitcoinRegtest;
  stellar: LocalStellarLedger;
  /** One case per family: its ledger id, an amount to withdraw, and how to fund an address. */
  cases: { ledgerId: 'ethdev' | 'btcregtest' | 'stellardev'; amount: string; fund(address: string): Promise<unknown> }[];
  stop(): Promise<void>;
}

/** anvil, a bcoin regtest node mining every 300 ms, and the Stellar simulator. */
export async function startThreeNodes(): Promise<ThreeNodes> {
  const [chain, regtest, stellar] = await Promise.all([startTestChain(), startBitcoinRegtest(), startStellarLedger({ closeIntervalMs: 0 })]);
  // Blocks keep coming, as on a live network, so Bitcoin transactions confirm.
  const miner = setInterval(() => void regtest.mine(1).catch(() => undefined), 300);
  return {
    chain,
    regtest,
    stellar,
    cases: [
      { ledgerId: 'ethdev', amount: '0.001', fund: (a) => chain.funder.sendEth(a, 10n ** 17n) },
      { ledgerId: 'btcregtest', amount: '0.001', fund: (a) => regtest.faucet(a, 10_000_000n) },
      { ledgerId: 'stellardev', amount: '1', fund: (a) => stellar.fund(a, '100') },
    ],
    stop: async () => {
      clearInterval(miner);
      await Promise.all([chain.stop(), regtest.stop(), stellar.stop()]);
    },
  };
}
