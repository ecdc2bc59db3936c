import { ConfigError } from '../../src/platform/config-error.js';
import type { AdaptorDeps, LedgerAdaptor, LedgerFamily } from '../../src/ledger/adaptor.js';
import { builtInEthereumCodec, ethereumAddressCodec } from './address-codec.js';
import type { EthContext } from './context.js';
import { ETHEREUM_LEDGERS } from './ledgers.js';
import { getBalances } from './logic/balances.js';
import { AssembledTxs } from './logic/assembled.js';
import { Checksums, KeyAddresses } from './logic/address.js';
import { broadcast, broadcastMany } from './logic/broadcast.js';
import { nextSequence, sendOrder } from './logic/send-order.js';
import { combine } from './logic/combine.js';
import { craft, release } from './logic/craft.js';
import { ethereumDepositSource } from './logic/deposit-source.js';
import { FEE_LEVELS } from './logic/fees.js';
import { health } from './logic/health.js';
import { replace, stuckReason } from './logic/replace.js';
import { txStatus } from './logic/tx-status.js';
import { ChainReads } from './network/chain-reads.js';
import { JsonRpcClient } from './network/json-rpc.js';
import { ethereumOptionsSchema, type EthereumOptions } from './options.js';

function createEthereumAdaptor(ledgerId: string, options: EthereumOptions, deps: AdaptorDeps): LedgerAdaptor {
  const known = ETHEREUM_LEDGERS[ledgerId];
  const chainId = options.chainId ?? known?.chainId;
  if (chainId === undefined) throw new ConfigError([`LEDGERS.${ledgerId}.chainId is required for a ledger that is not built in`]);
  const nativeAsset = { symbol: 'ETH', decimals: 18, native: true };
  const tokens = options.tokens.map((t) => ({ symbol: t.symbol, decimals: t.decimals, native: false, contract: t.contract }));
  const rpc = new JsonRpcClient(options.rpcUrl, deps.fetch);
  const checksums = new Checksums();
  const ctx: EthContext = {
    ledgerId,
    chainId,
    options,
    rpc,
    reads: new ChainReads(rpc, options.headMaxAgeMs),
    deps,
    nativeAsset,
    assembled: new AssembledTxs(),
    addresses: new KeyAddresses(),
    checksums,
  };
  return {
    ...ethereumAddressCodec(ledgerId, known?.network ?? `chain-${chainId}`, checksums),
    nativeAsset,
    confirmations: options.confirmations,
    assets: () => [nativeAsset, ...tokens],
    feeLevels: () => [...FEE_LEVELS],
    health: () => health(ctx),
    getBalances: (addresses, assets) => getBalances(ctx.rpc, addresses, assets),
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
    depositSource: ethereumDepositSource(ctx),
  };
}

export const ethereumFamily: LedgerFamily<EthereumOptions> = {
  family: 'ethereum',
  knownLedgers: Object.keys(ETHEREUM_LEDGERS),
  optionsSchema: ethereumOptionsSchema,
  sensitiveOptions: ['rpcUrl'],
  create: createEthereumAdaptor,
  addressCodec: builtInEthereumCodec,
  localNode: async () => {
    const { startEthereumLocalNode } = await import('./local-node/hook.js');
    return startEthereumLocalNode();
  },
};
