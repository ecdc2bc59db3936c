import { UnavailableError } from '../../../src/platform/errors.js';
import type { AssetInfo } from '../../../src/ledger/adaptor.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import { insufficientFunds } from '../../../src/ledger/insufficient-funds.js';
import type { EthContext } from '../context.js';
import type { AccountAtBlock } from '../network/chain-reads.js';

export interface NonceSpend {
  /** The account as the craft read it (possibly a block or `headMaxAgeMs` old). */
  account: AccountAtBlock;
  /** The assets of `account.balances`, in order. */
  assets: AssetInfo[];
  /** What the transaction may take from the account at most, per asset symbol (ETH: value + max fee). */
  spend: Record<string, bigint>;
  owner: string;
}

/**
 * Reserves the account's next nonce together with what its transaction may spend, checked in
 * one Redis step against the balance minus every spend of the account's reserved nonces that
 * the read's block does not show mined yet. So the balance may come from a per-block cache:
 * two withdrawals can never promise the same wei, in this process or another. A refusal, or
 * a read older than one another reservation used, is decided again on a fresh read.
 */
export async function reserveNonce(ctx: EthContext, scope: string, s: NonceSpend): Promise<bigint> {
  let account = s.account;
  for (let fresh = false; ; fresh = true) {
    const balances = Object.fromEntries(s.assets.map((a, i) => [a.symbol, account.balances[i] ?? 0n]));
    const r = await ctx.deps.reservations.reserveSequenceWithin(scope, account.pendingNonce, s.owner, { balances, minedBelow: account.minedNonce, spend: s.spend });
    if (r.ok) return r.n;
    if (!fresh) {
      account = (await ctx.reads.accounts([account.address], s.assets, true)).accounts[0] as AccountAtBlock;
      continue;
    }
    if (r.reason === 'stale') {
      throw new UnavailableError(`the Ethereum node answers from block state older than one already used (nonce ${account.minedNonce} mined, ${r.minedBelow} seen); retry`, undefined, 'ERR_NODE_BEHIND');
    }
    const asset = s.assets.find((a) => a.symbol === r.asset) as AssetInfo;
    const balance = balances[r.asset] ?? 0n;
    const required = s.spend[r.asset] as bigint;
    const fmt = (v: bigint) => `${formatAmount(v, asset.decimals)} ${asset.symbol}`;
    throw insufficientFunds(
      `${account.address} holds ${fmt(balance)}, of which withdrawals not yet mined may spend ${fmt(r.pending)}; this one needs ${fmt(required)}`,
      {
        address: account.address,
        asset,
        required,
        available: balance - r.pending,
        extra: { pendingBaseUnits: r.pending.toString() },
      },
    );
  }
}
