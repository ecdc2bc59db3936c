import type { ChainTransfer, DepositSource } from '../../../src/ledger/deposit-source.js';
import type { BtcContext } from '../context.js';

/**
 * What arrives on a Bitcoin ledger, block by block, from a back end that reads whole blocks
 * with their inputs' prevouts (Esplora's `/block/:hash/txs`, Core's `getblock <hash> 3`):
 * every output to an address, with the addresses its transaction spends from (which tell the
 * vault's own change). Coinbase outputs are left out: mining rewards are not deposits, and
 * they cannot be spent for 100 blocks.
 */
export function bitcoinDepositSource(ctx: BtcContext): DepositSource | undefined {
  const { backend } = ctx;
  if (!backend.tip || !backend.blockAt) return undefined;
  const tip = backend.tip.bind(backend);
  const blockAt = backend.blockAt.bind(backend);
  return {
    tip,
    block: async (height, watching) => {
      const b = await blockAt(height);
      if (!b) return undefined;
      const transfers: ChainTransfer[] = [];
      for (const tx of b.txs) {
        if (tx.coinbase) continue;
        tx.outputs.forEach((o, vout) => {
          if (!o.address || (watching && !watching(o.address))) return;
          transfers.push({
            txid: tx.txid,
            index: `out:${vout}`,
            to: o.address,
            asset: ctx.nativeAsset.symbol,
            configured: true,
            amount: o.value,
            from: tx.from,
          });
        });
      }
      return { height: b.height, hash: b.hash, parentHash: b.parentHash, time: b.time * 1000, transfers };
    },
  };
}
