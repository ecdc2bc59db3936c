import { UnavailableError } from '../../../src/platform/errors.js';
import type { AssetInfo } from '../../../src/ledger/adaptor.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import { insufficientFunds } from '../../../src/ledger/insufficient-funds.js';
import type { EthContext } from '../context.js';
import type { AccountAtBlock } from '../network/chain-reads.js';

/** Reservation scope of one account's nonces: per ledger, since chains share addresses. */
export function nonceScope(ctx: EthContext, from: string): string {
  return `${ctx.ledgerId}:${from.toLowerCase()}`;
}

/** Raw `pending` count: ethers' provider caches nonces for 250 ms, which hands out duplicates. */
export async function pendingNonce(ctx: EthContext, address: string): Promise<bigint> {
  return BigInt(await ctx.rpc.call<string>('eth_getTransactionCount', [address, 'pending']));
}

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
    const r = await ctx.deps.reservations.reserveSequenceWithin(scope, account.pendingNonce, s.owner, {
      balances,
      minedBelow: account.minedNonce,
      spend: s.spend,
    });
    if (r.ok) return r.n;
    if (!fresh) {
      account = (await ctx.reads.accounts([account.address], s.assets, true)).accounts[0] as AccountAtBlock;
      continue;
    }
    if (r.reason === 'stale') {
      throw new UnavailableError(
        `the Ethereum node answers from block state older than one already used (nonce ${account.minedNonce} mined, ${r.minedBelow} seen); retry`,
        undefined,
        'ERR_NODE_BEHIND',
      );
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

/** How many blocks back from the head the transaction that used a nonce is looked for. */
export const NONCE_SEARCH_BLOCKS = 128;
/** Blocks asked for in one JSON-RPC batch (with their transactions, each can be large). */
const BLOCKS_PER_REQUEST = 4;

/** `confirmations`: of the block holding the user, counted from the head the search started at. */
export type NonceUse = { kind: 'used'; hash: string; block: number; confirmations: number } | { kind: 'unproven'; why: string };

const hex = (n: number): string => `0x${n.toString(16)}`;

interface BlockWithTxs {
  transactions: { hash: string; from: string; nonce: string }[];
}

/**
 * Which transaction of `from` used nonce `nonce`, found in the blocks themselves (newest first,
 * NONCE_SEARCH_BLOCKS deep): the transaction of `from` with that nonce in a block is proof of
 * who used it, whichever node answered. "Not found by hash" from one node and "nonce passed"
 * from another prove nothing together: behind a load balancer the first may lag behind the
 * block that mined our own transaction. Block bodies need no historical state, so a pruned
 * node answers too. `unproven`: no such transaction in the blocks searched (a pooled one holds
 * the nonce, the use is older, or the node that answered lags); look again.
 */
export async function nonceUse(ctx: EthContext, from: string, nonce: bigint): Promise<NonceUse> {
  const head = Number(BigInt(await ctx.rpc.call<string>('eth_blockNumber', [])));
  const oldest = Math.max(0, head - NONCE_SEARCH_BLOCKS + 1);
  const sender = from.toLowerCase();
  for (let top = head; top >= oldest; top -= BLOCKS_PER_REQUEST) {
    const numbers = Array.from({ length: Math.min(BLOCKS_PER_REQUEST, top - oldest + 1) }, (_, i) => top - i);
    const blocks = await ctx.rpc.batch<BlockWithTxs | null>(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), true] })));
    for (const [i, block] of blocks.entries()) {
      const user = block?.transactions.find((t) => t.from.toLowerCase() === sender && BigInt(t.nonce) === nonce);
      if (user) return { kind: 'used', hash: user.hash, block: numbers[i] as number, confirmations: head - (numbers[i] as number) + 1 };
    }
  }
  return { kind: 'unproven', why: `no transaction of ${from} with nonce ${nonce} in blocks ${oldest}..${head}` };
}

/** `unproven` as the retryable error of a send that cannot tell yet whether the nonce's user is ours. */
export function unprovenNonce(ctx: EthContext, txid: string, use: Extract<NonceUse, { kind: 'unproven' }>): UnavailableError {
  return new UnavailableError(`${ctx.ledgerId}: whether ${txid} holds its nonce is not known yet: ${use.why}`, undefined, 'ERR_NODE_UNAVAILABLE');
}
