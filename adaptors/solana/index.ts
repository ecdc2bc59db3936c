import type { AdaptorDeps, LedgerAdaptor, LedgerFamily } from '../../src/ledger/adaptor.js';
import { builtInSolanaCodec, solanaAddressCodec } from './address-codec.js';
import type { SolanaContext } from './context.js';
import { SOLANA_LEDGERS } from './ledgers.js';
import { SOL, tokenAssets } from './logic/assets.js';
import { getBalances } from './logic/balances.js';
import { broadcast } from './logic/broadcast.js';
import { combine } from './logic/combine.js';
import { craft, release } from './logic/craft.js';
import { solanaDepositSource } from './logic/deposit-source.js';
import { FEE_LEVELS } from './logic/fees.js';
import { health } from './logic/health.js';
import { replace } from './logic/replace.js';
import { txStatus } from './logic/tx-status.js';
import { vaultSetup } from './logic/vault-setup.js';
import { SolanaRpc } from './network/rpc.js';
import { solanaOptionsSchema, type SolanaOptions } from './options.js';

export { nonceAccountAddress } from './logic/nonce.js';

function createSolanaAdaptor(ledgerId: string, options: SolanaOptions, deps: AdaptorDeps): LedgerAdaptor {
  const known = SOLANA_LEDGERS[ledgerId];
  const assets = [SOL, ...tokenAssets(options.tokens)];
  const ctx: SolanaContext = {
    ledgerId,
    genesisHash: known?.genesisHash,
    options,
    rpc: new SolanaRpc(options.rpcUrl, deps.fetch),
    deps,
    assets,
  };
  return {
    ...solanaAddressCodec(ledgerId, known?.network ?? 'custom'),
    nativeAsset: SOL,
    confirmations: options.confirmations,
    assets: () => [...assets],
    feeLevels: () => [...FEE_LEVELS],
    health: () => health(ctx),
    getBalances: (addresses, list) => getBalances(ctx, addresses, list),
    craft: (source, intent) => craft(ctx, source, intent),
    release: (unsigned, reference) => release(ctx, unsigned, reference),
    combine: (unsigned, sigs) => combine(unsigned, sigs),
    broadcast: (tx, context) => broadcast(ctx, tx, context),
    txStatus: (txid, unsigned) => txStatus(ctx, txid, unsigned),
    replace: (input) => replace(ctx, input),
    vaultSetup: (source) => vaultSetup(ctx, source),
    depositSource: solanaDepositSource(ctx),
  };
}

export const solanaFamily: LedgerFamily<SolanaOptions> = {
  family: 'solana',
  knownLedgers: Object.keys(SOLANA_LEDGERS),
  optionsSchema: solanaOptionsSchema,
  // Provider URLs often carry an API key.
  sensitiveOptions: ['rpcUrl'],
  create: createSolanaAdaptor,
  addressCodec: builtInSolanaCodec,
  localNode: async () => {
    const { startSolanaLocalNode } = await import('./local-node/hook.js');
    return startSolanaLocalNode();
  },
};
