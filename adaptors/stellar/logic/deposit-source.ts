import type { ChainTransfer, DepositSource } from '../../../src/ledger/deposit-source.js';
import { parseAmount } from '../../../src/ledger/amounts.js';
import { UpstreamError } from '../../../src/platform/errors.js';
import type { StellarContext } from '../context.js';
import type { HorizonPayment } from '../network/horizon.js';
import { STELLAR_DECIMALS } from './assets.js';

/** The operation's index in its transaction, from its id (a TOID: ledger, transaction, operation + 1 in the low 12 bits). */
const opIndex = (id: string): number => Number(BigInt(id) & 0xfffn) - 1;

/**
 * What arrives on a Stellar ledger, ledger by ledger: Horizon's payments of the ledger with
 * their transactions joined (`/ledgers/{n}/payments?join=transactions`), which carry the memo.
 * Stellar ledgers are final once closed: the parent-hash check never finds a fork there, it only
 * guards against a Horizon that answers from another network or a reset.
 */
export function stellarDepositSource(ctx: StellarContext): DepositSource {
  const symbolOf = (p: HorizonPayment): { asset: string; configured: boolean } => {
    if (p.asset_type === 'native' || p.type === 'create_account') return { asset: ctx.nativeAsset.symbol, configured: true };
    const found = ctx.assets.find((a) => !a.native && a.contract === p.asset_issuer && a.symbol.split(':')[0] === p.asset_code);
    return found ? { asset: found.symbol, configured: true } : { asset: `${p.asset_code}:${p.asset_issuer}`, configured: false };
  };
  const header = async (sequence: number) => {
    const l = await ctx.horizon.ledger(sequence);
    if (!l) return undefined;
    if (!l.hash || l.prev_hash === undefined) throw new UpstreamError(`Horizon's ledger ${sequence} has no hash`, true);
    return { ...l, hash: l.hash, prev_hash: l.prev_hash };
  };
  return {
    tip: async () => {
      const l = await ctx.horizon.latestLedger();
      if (!l.hash) throw new UpstreamError('Horizon gave its latest ledger without a hash', true);
      return { height: l.sequence, hash: l.hash };
    },
    block: async (sequence, watching) => {
      const l = await header(sequence);
      if (!l) return undefined;
      const transfers: ChainTransfer[] = [];
      for (const p of await ctx.horizon.ledgerPayments(sequence)) {
        if (p.transaction_successful === false) continue;
        // Path payments deliver `amount` to `to` like a payment; create_account's starting balance arrives at `account`.
        const to = p.type === 'create_account' ? p.account : p.to;
        const amount = p.type === 'create_account' ? p.starting_balance : p.amount;
        if (!to || amount === undefined || (watching && !watching(to))) continue;
        const memo = p.transaction?.memo_type && p.transaction.memo_type !== 'none' ? p.transaction.memo : undefined;
        transfers.push({
          txid: p.transaction_hash,
          index: `op:${opIndex(p.id)}`,
          to,
          ...symbolOf(p),
          amount: parseAmount(amount, STELLAR_DECIMALS),
          from: [p.type === 'create_account' ? (p.funder ?? p.source_account) : (p.from ?? p.source_account)],
          ...(memo !== undefined ? { memo } : {}),
          ...(p.to_muxed_id ? { muxedId: p.to_muxed_id } : {}),
        });
      }
      return { height: sequence, hash: l.hash, parentHash: l.prev_hash, time: Date.parse(l.closed_at), transfers };
    },
  };
}
