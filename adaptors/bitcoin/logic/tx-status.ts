import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import type { BackendTxStatus, Outspend } from '../network/backend.js';
import { bitcoinState, type BitcoinState } from './state.js';

type Input = BitcoinState['inputs'][number];
type Outpoint = { txid: string; vout: number };

/**
 * A transaction's status and the spends of `outpoints`: in one request where the back end has
 * one (Core's batch: one node answers all), else apart, the spends read only when asked for
 * (the transaction unknown). `outpoints` is read lazily: a withdrawal's state is needed only then,
 * except for the batch, which goes without it when the state cannot be read.
 */
async function statusWithSpends(
  ctx: BtcContext,
  txid: string,
  outpoints: () => Outpoint[],
): Promise<{ status: BackendTxStatus | undefined; spends: () => Promise<Outspend[]> }> {
  if (ctx.backend.statusAndSpends) {
    let asked: Outpoint[] = [];
    try {
      asked = outpoints();
    } catch {
      // Unreadable: the status alone; reading the spends below raises the error if they are needed.
    }
    if (asked.length) {
      const { status, spends } = await ctx.backend.statusAndSpends(txid, asked);
      return { status, spends: async () => spends };
    }
  }
  const status = await ctx.backend.txStatus(txid);
  return { status, spends: () => Promise.all(outpoints().map((o) => ctx.backend.outspend(o.txid, o.vout))) };
}

/**
 * A spend by another transaction that proves `txid` can never be mined: only one in a block.
 * A spender seen only in a mempool (`confirmed: false`) may be a lagging instance's stale view
 * (a replacement the network never mined) and decides nothing: look again. Core cannot always
 * tell (`confirmed` undefined) and its answer stands as before.
 */
const conflicting = (o: Outspend, txid: string) => o.spent && o.txid !== txid;
const proves = (o: Outspend) => o.confirmed !== false;

/**
 * Confirmations from the back end; confirmed once they reach the ledger's `confirmations`.
 * A transaction the back end does not know is `failed` when it can never be mined: one of its
 * inputs was spent by another transaction in a block (named in `spentBy`: a conflict, or one of
 * our own replacements), or the unconfirmed transaction that created one of its inputs was
 * replaced by one in a block; `proofConfirmations` is that block's confirmations where the back
 * end names it. A conflicting spend seen only in a mempool leaves it `pending`
 * (looked at again). It is `unknown` (dropped, to be sent again) while what it spends may still come.
 */
export async function txStatus(ctx: BtcContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const inputs = () => bitcoinState.decode(unsigned.state, { ledgerId: ctx.ledgerId }).inputs;
  const { status: s, spends } = await statusWithSpends(ctx, txid, inputs);
  if (!s) return unknownTxStatus(ctx, txid, inputs(), await spends());
  if (!s.confirmed || s.blockHeight === undefined) return { state: 'pending', confirmations: 0 };
  const tip = await ctx.backend.tipHeight();
  const confirmations = Math.max(0, tip - s.blockHeight + 1);
  return {
    state: confirmations >= ctx.confirmations ? 'confirmed' : 'pending',
    confirmations,
    blockHeight: s.blockHeight,
  };
}

/**
 * `proofConfirmations` of a spend in a block: its block's confirmations, where the back end names
 * the block (Esplora); absent where it cannot (Core's gettxout names neither spender nor block),
 * and then nothing proves the loss at depth.
 */
async function proofOf(ctx: BtcContext, o: Outspend): Promise<{ proofConfirmations?: number }> {
  if (o.blockHeight === undefined) return {};
  return { proofConfirmations: Math.max(0, (await ctx.backend.tipHeight()) - o.blockHeight + 1) };
}

async function unknownTxStatus(ctx: BtcContext, txid: string, inputs: Input[], spends: Outspend[]): Promise<TxStatus> {
  const others = spends.filter((o) => conflicting(o, txid));
  const spent = others.find(proves);
  if (spent)
    return {
      state: 'failed',
      confirmations: 0,
      reason: `inputs spent by ${spent.txid ?? 'another transaction'}`,
      ...(spent.txid ? { spentBy: spent.txid } : {}),
      ...(await proofOf(ctx, spent)),
    };
  const lost = await replacedParent(ctx, inputs);
  if (lost && lost !== 'unconfirmed') {
    const reason = `its input ${lost.input} no longer exists: the transaction that created it was replaced (its input ${lost.parentInput} was spent by ${lost.by ?? 'another transaction'})`;
    return { state: 'failed', confirmations: 0, reason, ...(await proofOf(ctx, lost.spend)) };
  }
  if (lost === 'unconfirmed' || others.length) return { state: 'pending', confirmations: 0 };
  return { state: 'unknown', confirmations: 0 };
}

/**
 * An input whose parent (an unconfirmed transaction when crafted) is gone for good: the back
 * end no longer has it, and one of the parent's own inputs is spent by another transaction in
 * a block (a speed-up or cancel of it). A parent that is only missing (evicted from a full
 * mempool, a node restarted) may be sent again and mined together with this one: that decides
 * nothing; nor does a replacement of it seen only in a mempool (`'unconfirmed'`): a lagging
 * instance may hold one the network never mined.
 */
async function replacedParent(
  ctx: BtcContext,
  inputs: Input[],
): Promise<{ input: string; parentInput: string; by?: string; spend: Outspend } | 'unconfirmed' | undefined> {
  const byParent = new Map<string, Input>();
  for (const i of inputs) if (i.parentInputs?.length && !byParent.has(i.txid)) byParent.set(i.txid, i);
  const found = await Promise.all(
    [...byParent.values()].map(async (i) => {
      const outpoints = (i.parentInputs as string[]).map((p) => ({ p, txid: p.slice(0, 64), vout: Number(p.slice(65)) }));
      const { status, spends: read } = await statusWithSpends(ctx, i.txid, () => outpoints);
      if (status) return undefined;
      const spends = await read();
      const k = spends.findIndex((o) => conflicting(o, i.txid) && proves(o));
      if (k < 0) return spends.some((o) => conflicting(o, i.txid)) ? ('unconfirmed' as const) : undefined;
      const spend = spends[k] as Outspend;
      return { input: `${i.txid}:${i.vout}`, parentInput: (outpoints[k] as { p: string }).p, spend, ...(spend.txid ? { by: spend.txid } : {}) };
    }),
  );
  return found.find((f) => f !== undefined && f !== 'unconfirmed') ?? found.find((f) => f !== undefined);
}
