import { stellarDepositSource } from './logic/deposit-source.js';
import { ConfigError } from '../../src/platform/config-error.js';
import type { AdaptorDeps, LedgerAdaptor, LedgerFamily } from '../../src/ledger/adaptor.js';
import { builtInStellarCodec, stellarAddressCodec } from './address-codec.js';
import type { StellarContext } from './context.js';
import { STELLAR_LEDGERS } from './ledgers.js';
import { creditAssets, NATIVE_ASSET } from './logic/assets.js';
import { getBalances } from './logic/balances.js';
import { broadcast, broadcastMany } from './logic/broadcast.js';
import { nextSequence, sendOrder } from './logic/send-order.js';
import { combine } from './logic/combine.js';
import { craft, release } from './logic/craft.js';
import { FEE_LEVELS } from './logic/fees.js';
import { health } from './logic/health.js';
import { replace, stuckReason } from './logic/replace.js';
import { txStatus } from './logic/tx-status.js';
import { HorizonClient } from './network/horizon.js';
import { stellarOptionsSchema, type StellarOptions } from './options.js';

export { splitRecipient } from './logic/address.js';
export { parseMemo } from './logic/memo.js';

function createStellarAdaptor(ledgerId: string, options: StellarOptions, deps: AdaptorDeps): LedgerAdaptor {
  const known = STELLAR_LEDGERS[ledgerId];
  const passphrase = options.networkPassphrase ?? known?.passphrase;
  if (!passphrase) throw new ConfigError([`LEDGERS.${ledgerId}.networkPassphrase is required for a ledger that is not built in`]);
  const assets = [NATIVE_ASSET, ...creditAssets(options.assets)];
  const ctx: StellarContext = {
    ledgerId,
    passphrase,
    options,
    horizon: new HorizonClient(options.horizonUrl, deps.fetch),
    deps,
    nativeAsset: NATIVE_ASSET,
    assets,
  };
  return {
    ...stellarAddressCodec(ledgerId, known?.network ?? 'custom'),
    nativeAsset: NATIVE_ASSET,
    confirmations: options.confirmations,
    carriesMemo: true,
    assets: () => [...assets],
    feeLevels: () => [...FEE_LEVELS],
    health: () => health(ctx),
    getBalances: (addresses, list) => getBalances(ctx, addresses, list),
    craft: (source, intent) => craft(ctx, source, intent),
    release: (unsigned, reference) => release(ctx, unsigned, reference),
    combine: (unsigned, sigs) => combine(ctx, unsigned, sigs),
    sendOrder,
    nextSequence: (account) => nextSequence(ctx, account),
    broadcast: (tx) => broadcast(ctx, tx),
    broadcastMany: (txs) => broadcastMany(ctx, txs),
    txStatus: (txid, unsigned) => txStatus(ctx, txid, unsigned),
    replace: (input) => replace(ctx, input),
    stuckReason: (unsigned) => stuckReason(ctx, unsigned),
    depositSource: stellarDepositSource(ctx),
  };
}

export const stellarFamily: LedgerFamily<StellarOptions> = {
  family: 'stellar',
  knownLedgers: Object.keys(STELLAR_LEDGERS),
  optionsSchema: stellarOptionsSchema,
  // Provider URLs often carry an API key.
  sensitiveOptions: ['horizonUrl'],
  create: createStellarAdaptor,
  addressCodec: builtInStellarCodec,
  localNode: async () => {
    const { startStellarLocalNode } = await import('./local-node/hook.js');
    return startStellarLocalNode();
  },
};
