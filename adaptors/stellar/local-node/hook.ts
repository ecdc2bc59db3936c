import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import { startStellarLedger } from './index.js';

/** The `stellardev` ledger on a fresh Stellar ledger simulator, with a USDC asset issued on it. */
export async function startStellarLocalNode(): Promise<LocalLedgerNode> {
  const stellar = await startStellarLedger();
  try {
    const usdc = await stellar.createAsset('USDC');
    return {
      ledgerId: 'stellardev',
      options: { horizonUrl: stellar.url, networkPassphrase: stellar.passphrase, assets: [usdc] },
      description: `stellardev  Stellar ledger SIMULATOR, Horizon subset at ${stellar.url}, USDC issuer ${usdc.issuer}`,
      faucet: async (address, asset, units) => {
        // The simulator's faucet creates and funds accounts in XLM; it does not send issued assets.
        if (asset !== 'XLM') throw new InvalidArgumentError(`The stellardev faucet sends XLM only`);
        await stellar.fund(address, formatAmount(units, 7));
        return 'funded';
      },
      stop: stellar.stop,
    };
  } catch (e) {
    await stellar.stop();
    throw e;
  }
}
