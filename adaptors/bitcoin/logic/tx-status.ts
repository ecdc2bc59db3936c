import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { bitcoinState, type BitcoinState } from './state.js';

type Input = BitcoinState['inputs'][number];

/**
 * Confirmations from the back end; confirmed once they reach the ledger's `confirmations`.
 * A transaction the back end does not know is `failed` when it can never be mined: one of its
 * inputs was spent by another transaction (named in `spentBy`: a conflict, or one of our own
 * replacements), or the unconfirmed transaction that created one of its inputs was replaced.
 * It is `unknown` (dropped, to be sent again) while what it spends may still come.
 */
export async function txStatus(ctx: BtcContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const s = await ctx.backend.txStatus(txid);
  if (!s) return unknownTxStatus(ctx, txid, unsigned);
  if (!s.confirmed || s.blockHeight === undefined) return { state: 'pending', confirmations: 0 };
  const tip = await ctx.backend.tipHeight();
  const confirmations = Math.max(0, tip - s.blockHeight + 1);
  return {
    state: confirmations >= ctx.confirmations ? 'confirmed' : 'pending',
    confirmations,
    blockHeight: s.blockHeight,
  };
}

async function unknownTxStatus(ctx: BtcContext, txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  const { inputs } = bitcoinState.decode(unsigned.state, { ledgerId: ctx.ledgerId });
  const spends = await Promise.all(inputs.map((i) => ctx.backend.outspend(i.txid, i.vout)));
  const spent = spends.find((o) => o.spent && o.txid !== txid);
  if (spent) return { state: 'failed', confirmations: 0, reason: `inputs spent by ${spent.txid ?? 'another transaction'}`, ...(spent.txid ? { spentBy: spent.txid } : {}) };
  const lost = await replacedParent(ctx, inputs);
  if (lost) {
    const reason = `its input ${lost.input} no longer exists: the transaction that created it was replaced (its input ${lost.parentInput} was spent by ${lost.by ?? 'another transaction'})`;
    return { state: 'failed', confirmations: 0, reason };
  }
  return { state: 'unknown', confirmations: 0 };
}

/**
 * An input whose parent (an unconfirmed transaction when crafted) is gone for good: the back
 * end no longer has it, and one of the parent's own inputs is spent by another transaction (a
 * speed-up or cancel of it). A parent that is only missing (evicted from a full mempool, a
 * node restarted) may be sent again and mined together with this one: that decides nothing.
 */
async function replacedParent(ctx: BtcContext, inputs: Input[]): Promise<{ input: string; parentInput: string; by?: string } | undefined> {
  const byParent = new Map<string, Input>();
  for (const i of inputs) if (i.parentInputs?.length && !byParent.has(i.txid)) byParent.set(i.txid, i);
  const found = await Promise.all(
    [...byParent.values()].map(async (i) => {
      if (await ctx.backend.txStatus(i.txid)) return undefined;
      const outpoints = (i.parentInputs as string[]).map((p) => ({ p, txid: p.slice(0, 64), vout: Number(p.slice(65)) }));
      const spends = await Promise.all(outpoints.map((o) => ctx.backend.outspend(o.txid, o.vout)));
      const k = spends.findIndex((o) => o.spent && o.txid !== i.txid);
      if (k < 0) return undefined;
      const by = spends[k]?.txid;
      return { input: `${i.txid}:${i.vout}`, parentInput: (outpoints[k] as { p: string }).p, ...(by ? { by } : {}) };
    }),
  );
  return found.find((f) => f !== undefined);
}
