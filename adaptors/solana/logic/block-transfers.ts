import { getBase58Encoder } from '@solana/kit';
import type { ChainTransfer } from '../../../src/ledger/deposit-source.js';
import { UpstreamError } from '../../../src/platform/errors.js';
import type { RpcBlock, RpcBlockTransaction, RpcTokenBalance } from '../network/rpc.js';

/** The SPL Memo program, v2 and v1: their instruction data is the memo's UTF-8 text. */
const MEMO_PROGRAMS = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

export interface TransferOptions {
  nativeSymbol: string;
  /** Configured SPL tokens: mint → symbol. */
  tokens: ReadonlyMap<string, string>;
  /** The owner's associated token account for a mint under a token program. */
  associatedAccount(owner: string, mint: string, tokenProgram: string): Promise<string>;
  watching?: (address: string) => boolean;
}

/**
 * What arrives in a block, read from its transactions' balances rather than their
 * instructions: the lamports of every account before and after, and the token balances of
 * every token account (`preBalances`/`postBalances`, `preTokenBalances`/`postTokenBalances`).
 * That sees value moved by any program, inner (CPI) transfers included, without decoding
 * instructions; several instructions paying one account in one transaction make one transfer.
 *
 * - SOL: each account whose lamports went up (the fee payer's counted before its fee); `from`
 *   is the fee payer and every account whose lamports went down.
 * - SPL: each token account whose balance went up, reported to its owner (`to`) with the token
 *   account (`account`); `from` is the fee payer and the owners of the same mint's token
 *   accounts that went down. A configured mint counts (`configured`) only in the owner's
 *   associated token account, which is what the vault's balance and withdrawals use; in any
 *   other token account, and for a mint not configured, it is recorded with the mint as `asset`.
 * - `index`: `sol:{i}` and `spl:{i}`, i the account's index in the transaction's account keys
 *   (static keys, then the lookup tables' writable and read-only ones): signed into the message,
 *   the same in whatever block the transaction lands, one per account and asset.
 * - A failed transaction (`meta.err`) moved nothing but its fee: none of it is reported.
 * - `memo`: the text of the transaction's Memo program instructions (top level; several joined
 *   by a newline), on each of its transfers: what exchanges route Solana deposits by.
 */
export async function blockTransfers(block: RpcBlock, opts: TransferOptions): Promise<ChainTransfer[]> {
  const out: ChainTransfer[] = [];
  for (const tx of block.transactions ?? []) out.push(...(await transactionTransfers(tx, opts)));
  return out;
}

async function transactionTransfers(tx: RpcBlockTransaction, opts: TransferOptions): Promise<ChainTransfer[]> {
  const txid = tx.transaction.signatures[0];
  const meta = tx.meta;
  if (!txid) throw new UpstreamError('Solana RPC getBlock: a transaction without a signature', false);
  if (!meta) throw new UpstreamError(`Solana RPC getBlock: transaction ${txid} without its status meta`, false);
  if (meta.err !== null && meta.err !== undefined) return [];
  const keys = [...tx.transaction.message.accountKeys, ...(meta.loadedAddresses?.writable ?? []), ...(meta.loadedAddresses?.readonly ?? [])];
  const feePayer = keys[0] as string;
  const out: ChainTransfer[] = [];
  const memo = memoOf(tx, keys);

  const change = keys.map((_, i) => BigInt(meta.postBalances[i] ?? 0) - BigInt(meta.preBalances[i] ?? 0) + (i === 0 ? BigInt(meta.fee) : 0n));
  const solFrom = unique([feePayer, ...keys.filter((_, i) => (change[i] as bigint) < 0n)]);
  keys.forEach((to, i) => {
    const amount = change[i] as bigint;
    if (amount <= 0n || (opts.watching && !opts.watching(to))) return;
    out.push({ txid, index: `sol:${i}`, to, asset: opts.nativeSymbol, configured: true, amount, from: solFrom, ...(memo !== undefined ? { memo } : {}) });
  });

  const pre = byIndex(meta.preTokenBalances);
  const post = byIndex(meta.postTokenBalances);
  const units = (b: RpcTokenBalance | undefined) => BigInt(b?.uiTokenAmount.amount ?? '0');
  const moved = [...new Set([...pre.keys(), ...post.keys()])]
    .sort((a, b) => a - b)
    .map((i) => {
      const b = (post.get(i) ?? pre.get(i)) as RpcTokenBalance;
      return { i, mint: b.mint, owner: b.owner ?? (keys[i] as string), programId: b.programId, delta: units(post.get(i)) - units(pre.get(i)) };
    });
  for (const m of moved) {
    // Token balances without an owner (blocks from before nodes recorded it) cannot be told to anyone.
    const balance = post.get(m.i);
    if (m.delta <= 0n || !balance?.owner || (opts.watching && !opts.watching(balance.owner))) continue;
    const account = keys[m.i] as string;
    const symbol = opts.tokens.get(m.mint);
    const credited = symbol !== undefined && m.programId !== undefined && (await opts.associatedAccount(balance.owner, m.mint, m.programId)) === account;
    out.push({
      txid,
      index: `spl:${m.i}`,
      to: balance.owner,
      asset: credited ? symbol : m.mint,
      configured: credited,
      amount: m.delta,
      from: unique([feePayer, ...moved.filter((o) => o.mint === m.mint && o.delta < 0n).map((o) => o.owner)]),
      ...(memo !== undefined ? { memo } : {}),
      account,
    });
  }
  return out;
}

function memoOf(tx: RpcBlockTransaction, keys: string[]): string | undefined {
  const texts = tx.transaction.message.instructions
    .filter((ix) => MEMO_PROGRAMS.has(keys[ix.programIdIndex] ?? ''))
    .map((ix) => new TextDecoder().decode(Uint8Array.from(getBase58Encoder().encode(ix.data))));
  return texts.length ? texts.join('\n') : undefined;
}

function byIndex(list: RpcTokenBalance[] | null | undefined): Map<number, RpcTokenBalance> {
  return new Map((list ?? []).map((b) => [b.accountIndex, b]));
}

const unique = (list: string[]) => [...new Set(list)];
