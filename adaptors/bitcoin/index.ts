import { ConfigError } from '../../src/platform/config-error.js';
import type { AdaptorDeps, LedgerAdaptor, LedgerFamily } from '../../src/ledger/adaptor.js';
import { bitcoinAddressCodec, builtInBitcoinCodec } from './address-codec.js';
import type { BtcContext } from './context.js';
import { recipientScript } from './logic/address.js';
import { addressesUsed, getBalances } from './logic/balances.js';
import { broadcast } from './logic/broadcast.js';
import { combine } from './logic/combine.js';
import { craft, release } from './logic/craft.js';
import { bitcoinDepositSource } from './logic/deposit-source.js';
import { FEE_LEVELS } from './logic/fees.js';
import { health } from './logic/health.js';
import { replace, stuckReason } from './logic/replace.js';
import { txStatus } from './logic/tx-status.js';
import type { BitcoinBackend } from './network/backend.js';
import { CoreRpcBackend } from './network/core-rpc.js';
import { EsploraBackend } from './network/esplora.js';
import { BITCOIN_LEDGERS, BITCOINJS_NETWORKS } from './ledgers.js';
import { bitcoinOptionsSchema, type BitcoinOptions } from './options.js';
import { Turns } from '../../src/platform/turns.js';
import type { HttpFetch } from '../../src/platform/http-client.js';

export type { BitcoinOptions };

function createBackend(options: BitcoinOptions, network: BtcContext['network'], fetchFn: HttpFetch): BitcoinBackend {
  if (options.backend === 'esplora') return new EsploraBackend(options.url, fetchFn);
  const scriptFor = (address: string): string => Buffer.from(recipientScript(address, network) ?? []).toString('hex');
  return new CoreRpcBackend(options.url, fetchFn, scriptFor, { username: options.username, password: options.password });
}

function createBitcoinAdaptor(ledgerId: string, options: BitcoinOptions, deps: AdaptorDeps): LedgerAdaptor {
  const networkName = options.network ?? BITCOIN_LEDGERS[ledgerId];
  if (!networkName) throw new ConfigError([`LEDGERS.${ledgerId}.network is required for a ledger that is not built in`]);
  const network = BITCOINJS_NETWORKS[networkName];
  const nativeAsset = { symbol: 'BTC', decimals: 8, native: true };
  const ctx: BtcContext = {
    ledgerId,
    networkName,
    network,
    options,
    backend: createBackend(options, network, deps.fetch),
    deps,
    nativeAsset,
    reservationScope: ledgerId,
    coinTurns: new Turns(),
    confirmations: options.confirmations ?? (networkName === 'regtest' ? 1 : 3),
  };
  return {
    ...bitcoinAddressCodec(ledgerId, networkName, options.defaultAddressFormat),
    nativeAsset,
    confirmations: ctx.confirmations,
    // A withdrawal to the vault's own address spends its small coins into one (logic/coin-selection.ts).
    consolidates: true,
    assets: () => [nativeAsset],
    feeLevels: () => [...FEE_LEVELS],
    health: () => health(ctx),
    getBalances: (addresses, assets) => getBalances(ctx, addresses, assets),
    addressesUsed: (addresses) => addressesUsed(ctx, addresses),
    craft: (source, intent) => craft(ctx, source, intent),
    release: (unsigned, reference) => release(ctx, unsigned, reference),
    combine: (unsigned, sigs) => combine(ctx, unsigned, sigs),
    broadcast: (tx) => broadcast(ctx, tx),
    txStatus: (txid, unsigned) => txStatus(ctx, txid, unsigned),
    replace: (input) => replace(ctx, input),
    depositSource: bitcoinDepositSource(ctx),
    stuckReason: (unsigned) => stuckReason(ctx, unsigned),
  };
}

export const bitcoinFamily: LedgerFamily<BitcoinOptions> = {
  family: 'bitcoin',
  knownLedgers: Object.keys(BITCOIN_LEDGERS),
  optionsSchema: bitcoinOptionsSchema,
  // Esplora URLs of paid providers carry API keys; Core URLs can carry credentials.
  sensitiveOptions: ['url', 'username', 'password'],
  create: createBitcoinAdaptor,
  addressCodec: builtInBitcoinCodec,
  localNode: async () => {
    const { startBitcoinLocalNode } = await import('./local-node/hook.js');
    return startBitcoinLocalNode();
  },
};
