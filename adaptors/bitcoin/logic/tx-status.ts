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
 * Blocks past the ledger's confirmations that Core's recent blocks are searched for a spender:
 * a spend deeper than that (the service stopped for hours) is never proven, and the withdrawal
 * stays open rather than FAILED on a guess.
 */
export const SPEND_SEARCH_MARGIN = 12;

/**
 * `proofConfirmations` of a spend of `at` in a block: its block's confirmations, where the back
 * end names the block (Esplora), or where it finds the spender in its newest blocks (Core, whose
 * gettxout names neither; then the spender is named too). Absent otherwise: nothing proves the
 * loss at depth.
 */
async function proofOf(ctx: BtcContext, o: Outspend, at: Outpoint): Promise<{ proofConfirmations?: number; spentBy?: string }> {
  if (o.blockHeight !== undefined) return { proofConfirmations: Math.max(0, (await ctx.backend.tipHeight()) - o.blockHeight + 1) };
  if (o.confirmed === false || !ctx.backend.spendInRecentBlocks) return {};
  const found = await ctx.backend.spendInRecentBlocks(at.txid, at.vout, ctx.confirmations + SPEND_SEARCH_MARGIN);
  return found ? { proofConfirmations: found.confirmations, spentBy: found.spender } : {};
}

async function unknownTxStatus(ctx: BtcContext, txid: string, inputs: Input[], spends: Outspend[]): Promise<TxStatus> {
  const others = spends.filter((o) => conflicting(o, txid));
  const k = spends.findIndex((o) => conflicting(o, txid) && proves(o));
  const spent = spends[k];
  if (spent) {
    const proof = await proofOf(ctx, spent, inputs[k] as Input);
    const by = spent.txid ?? proof.spentBy;
    if (by === txid) return { state: 'pending', confirmations: 0 };
    return {
      state: 'failed',
      confirmations: 0,
      reason: `inputs spent by ${by ?? 'another transaction'}`,
      ...(by ? { spentBy: by } : {}),
      ...(proof.proofConfirmations !== undefined ? { proofConfirmations: proof.proofConfirmations } : {}),
    };
  }
  const lost = await replacedParent(ctx, inputs);
  if (lost && lost !== 'unconfirmed') {
    const reason = `its input ${lost.input} no longer exists: the transaction that created it was replaced (its input ${lost.parentInput} was spent by ${lost.by ?? 'another transaction'})`;
    const proof = await proofOf(ctx, lost.spend, lost.at);
    return { state: 'failed', confirmations: 0, reason, ...(proof.proofConfirmations !== undefined ? { proofConfirmations: proof.proofConfirmations } : {}) };
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
): Promise<{ input: string; parentInput: string; by?: string; spend: Outspend; at: Outpoint } | 'unconfirmed' | undefined> {
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
      const at = outpoints[k] as { p: string; txid: string; vout: number };
      return { input: `${i.txid}:${i.vout}`, parentInput: at.p, spend, at: { txid: at.txid, vout: at.vout }, ...(spend.txid ? { by: spend.txid } : {}) };
    }),
  );
  return found.find((f) => f !== undefined && f !== 'unconfirmed') ?? found.find((f) => f !== undefined);
}
