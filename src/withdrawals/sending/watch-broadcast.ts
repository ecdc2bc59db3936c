import type { LedgerAdaptor, TxStatus } from '../../ledger/adaptor.js';
import { type Attempt, attemptsOf, fromStored, type Operation, type Refusal, signedOf, unsignedOf, withRefusal } from '../model/operation.js';
import { failOperation } from '../fail-operation.js';
import { refusalOf } from '../hold-refused.js';
import { invalidateIfDue } from '../invalidate-refused.js';
import type { PipelineDeps } from '../pipeline-deps.js';

/** One attempt as the node sees it, summed over its transactions. */
type Seen =
  | { kind: 'mined'; confirmations: number; height: number }
  | { kind: 'mined-failed'; confirmations: number; height: number; reason: string }
  | { kind: 'lost'; reason: string; spentBy?: string; proof?: number }
  | { kind: 'unknown' }
  | { kind: 'pending' };

function summarise(list: TxStatus[]): Seen {
  const revert = list.find((s) => s.state === 'failed' && s.blockHeight !== undefined);
  if (revert)
    return { kind: 'mined-failed', confirmations: revert.confirmations, height: revert.blockHeight as number, reason: revert.reason ?? 'no reason given' };
  if (list.every((s) => s.confirmations > 0 || s.state === 'confirmed')) {
    return { kind: 'mined', confirmations: Math.min(...list.map((s) => s.confirmations)), height: Math.max(...list.map((s) => s.blockHeight ?? 0)) };
  }
  const lost = list.find((s) => s.state === 'failed');
  if (lost)
    return {
      kind: 'lost',
      reason: lost.reason ?? 'no reason given',
      ...(lost.spentBy ? { spentBy: lost.spentBy } : {}),
      ...(lost.proofConfirmations !== undefined ? { proof: lost.proofConfirmations } : {}),
    };
  return list.some((s) => s.state === 'unknown') ? { kind: 'unknown' } : { kind: 'pending' };
}

const MAX_RESEND_DELAY_S = 3600;

/**
 * One look at a BROADCAST withdrawal and every attempt it has out (original, speed-ups, a
 * cancel); returns true once the withdrawal is final.
 *
 * - Mined: the withdrawal follows that attempt: its txids, its confirmations; at the ledger's
 *   threshold CONFIRMED (or FAILED `cancelled` when the cancel landed), the others `replaced`.
 *   A mined transaction that failed (revert, failed operation) is followed the same way and
 *   fails the withdrawal only at the threshold: before it, its block may leave the chain.
 * - Reorganised: an attempt seen mined that is no longer: confirmations back to 0, noted in
 *   the history, still BROADCAST; sent again below if the node forgot it.
 * - Conflict: every attempt lost to a transaction that is not ours (nonce taken, inputs spent
 *   by another transaction, sequence or durable nonce past it), each loss proven by a block with
 *   the ledger's confirmations: FAILED with the reason, reservations back. A loss whose proof is
 *   shallower (its block may still leave the chain) decides nothing yet.
 * - Refused: a transaction the node refused without proof is watched like any other (sent again
 *   while the node does not know it, followed if it lands); its invalidation is asked for once
 *   INVALIDATE_REFUSED_AFTER_SECONDS passed (invalidate-refused.ts).
 * - Dropped: the node no longer knows the newest attempt while what it spends is unspent: its
 *   stored signed bytes are sent again, with a doubling delay, counted on the attempt.
 * - Stuck: not mined STUCK_AFTER_SECONDS (or STUCK_AFTER_BLOCKS) after it was sent: marked
 *   with the reason the adaptor sees (fee under the market, predecessor missing).
 */
export async function watchBroadcast(deps: PipelineDeps, op: Operation): Promise<boolean> {
  const adaptor = deps.registry.get(op.ledgerId);
  const attempts = attemptsOf(op);
  const live = attempts.flatMap((a, i) => (a.status === 'broadcast' && a.txids.length ? [i] : []));
  if (live.length === 0) return false;
  const seen = await Promise.all(
    live.map(async (i) => summarise(await Promise.all((attempts[i] as Attempt).txids.map((t) => adaptor.txStatus(t, fromStored(unsignedOf(op, i))))))),
  );
  const now = new Date();
  const look: Look = { op, adaptor, attempts, live, seen, now, at: now.toISOString() };

  const minedK = mostConfirmed(seen);
  if (minedK >= 0) return followMined(deps, look, minedK);

  // Nothing mined now. Whatever was seen mined before left the best chain.
  const reorged = live.filter((i) => (attempts[i]?.minedAt ?? 0) > 0);
  const settled = await settleLost(deps, look, reorged);
  if (settled !== undefined) return settled;
  await watchUnmined(deps, look, reorged);
  return false;
}

/** One look at a withdrawal: its attempts, the live ones (indexes) and what the node says of each. */
interface Look {
  op: Operation;
  adaptor: LedgerAdaptor;
  attempts: Attempt[];
  live: number[];
  /** By position in `live`. */
  seen: Seen[];
  now: Date;
  at: string;
}

/** The position in `seen` of the mined attempt with the most confirmations, or -1. */
function mostConfirmed(seen: Seen[]): number {
  return seen.reduce<number>(
    (best, s, k) =>
      s.kind === 'mined' || s.kind === 'mined-failed'
        ? best < 0 || s.confirmations > (seen[best] as { confirmations: number }).confirmations
          ? k
          : best
        : best,
    -1,
  );
}

/**
 * The withdrawal follows the mined attempt (`live[minedK]`): final at the ledger's threshold,
 * otherwise its confirmations, txids and block are recorded. True once final.
 */
async function followMined(deps: PipelineDeps, look: Look, minedK: number): Promise<boolean> {
  const { op, adaptor, attempts, live, seen, at } = look;
  const m = live[minedK] as number;
  const s = seen[minedK] as Extract<Seen, { confirmations: number }>;
  const landed = attempts[m] as Attempt;
  if (s.confirmations >= adaptor.confirmations) {
    await settleMined(deps, op, m, s, landed);
    return true;
  }
  // Below the threshold a failure is no more final than a success: its block may still leave
  // the chain, and the same signed transaction may then be mined again and succeed.
  const noted =
    s.kind === 'mined-failed' && landed.minedAt !== s.height
      ? [
          {
            status: 'BROADCAST' as const,
            at,
            detail: `mined at ${s.height} and failed (${s.reason}); FAILED once it has ${adaptor.confirmations} confirmations`,
          },
        ]
      : [];
  if (op.confirmations !== s.confirmations || landed.minedAt !== s.height || op.stuck || op.refused || op.txids.join() !== landed.txids.join()) {
    await deps.store.update(op.id, (o) => ({
      ...o,
      confirmations: s.confirmations,
      txids: landed.txids,
      stuck: undefined,
      refused: undefined,
      attempts: attemptsOf(o).map((a, i) => (i === m ? { ...a, minedAt: s.height } : a)),
      history: [...o.history, ...noted],
    }));
  }
  return false;
}

/** At the threshold: FAILED when the mined transaction failed or the cancel landed, CONFIRMED otherwise; the other attempts `replaced`. */
async function settleMined(deps: PipelineDeps, op: Operation, m: number, s: Extract<Seen, { confirmations: number }>, landed: Attempt): Promise<void> {
  const settle = (status: Attempt['status']) =>
    attemptsOf(op).map((a, i) =>
      i === m ? { ...a, status, minedAt: s.height } : a.status === 'broadcast' || a.status === 'signing' ? { ...a, status: 'replaced' as const } : a,
    );
  if (s.kind === 'mined-failed') {
    await failOperation(deps, op, `transaction failed on the ledger: ${s.reason}`, ['BROADCAST'], {
      txids: landed.txids,
      attempts: settle('failed'),
      confirmations: s.confirmations,
      stuck: undefined,
    });
    return;
  }
  if (landed.kind === 'cancel') {
    deps.metrics?.afterBroadcast.inc({ ledger: op.ledgerId, event: 'cancelled' });
    const after = attemptsOf(op)[0]?.refusals?.[0];
    const why = after ? ` (the original was refused by the node: ${after.answer}; the cancel invalidated it)` : '';
    await failOperation(deps, op, `cancelled: the cancel transaction ${landed.txids.join(', ')} landed${why}`, ['BROADCAST'], {
      txids: landed.txids,
      attempts: settle('confirmed'),
      confirmations: s.confirmations,
      stuck: undefined,
    });
    return;
  }
  await deps.store.transition(op.id, ['BROADCAST'], 'CONFIRMED', () => ({
    confirmations: s.confirmations,
    txids: landed.txids,
    attempts: settle('confirmed'),
    stuck: undefined,
    refused: undefined,
  }));
}

/**
 * Every live attempt lost and none reorganised: spent by one of our own attempts that is not
 * watched (it is watched again; false), or by a foreign transaction (FAILED; true). Undefined
 * when neither applies and the look goes on.
 */
async function settleLost(deps: PipelineDeps, look: Look, reorged: number[]): Promise<boolean | undefined> {
  const { op, attempts, live, seen } = look;
  const ours = new Set(attempts.flatMap((a) => a.txids));
  const lost = seen.filter((s): s is Extract<Seen, { kind: 'lost' }> => s.kind === 'lost');
  if (lost.length !== live.length || reorged.length !== 0) return undefined;
  // Spent by one of our own attempts that is not watched (its send was thought refused): it is out after all.
  const revive = attempts.flatMap((a, i) => (a.status !== 'broadcast' && a.txids.some((t) => lost.some((l) => l.spentBy === t)) ? [i] : []));
  if (revive.length && lost.every((l) => l.spentBy && ours.has(l.spentBy))) {
    await deps.store.update(op.id, (o) => ({ ...o, attempts: attemptsOf(o).map((a, i) => (revive.includes(i) ? { ...a, status: 'broadcast' as const } : a)) }));
    return false;
  }
  const foreign = lost.find((l) => !l.spentBy || !ours.has(l.spentBy));
  if (!foreign) return undefined;
  // Proven only at depth: a conflict in a block that may leave the chain could give way to ours.
  if (lost.some((l) => (l.proof ?? -1) < look.adaptor.confirmations)) return undefined;
  // The attempts as they are now: a speed-up or cancel added during this look may be what took
  // the nonce or inputs (sent and mined at once); the next look follows it.
  const now = new Set(attemptsOf(await deps.store.get(op.id)).flatMap((a) => a.txids));
  if (lost.some((l) => l.spentBy && !ours.has(l.spentBy) && now.has(l.spentBy))) return undefined;
  deps.metrics?.afterBroadcast.inc({ ledger: op.ledgerId, event: 'conflict' });
  const reason = foreign.spentBy
    ? `conflict: its inputs were spent by transaction ${foreign.spentBy}, which is not this withdrawal's`
    : `transaction failed on the ledger: ${foreign.reason}`;
  await failOperation(deps, op, reason, ['BROADCAST'], {
    attempts: attemptsOf(op).map((a) => (a.status === 'broadcast' ? { ...a, status: 'failed' as const, failureReason: reason } : a)),
    stuck: undefined,
  });
  return true;
}

/** What a look at an unmined withdrawal changes, written in one update. */
interface Notes {
  history: Operation['history'];
  change: Partial<Operation>;
  patch: Map<number, Partial<Attempt>>;
}

/** Nothing mined and nothing settled: notes a reorganisation, sends a forgotten attempt again, marks it stuck. */
async function watchUnmined(deps: PipelineDeps, look: Look, reorged: number[]): Promise<void> {
  const { op, attempts, live, at } = look;
  const ledger = op.ledgerId;
  const newestK = live.length - 1;
  const newest = live[newestK] as number;
  const notes: Notes = { history: [], change: {}, patch: new Map() };
  const { history, change, patch } = notes;
  if (reorged.length) {
    deps.metrics?.afterBroadcast.inc({ ledger, event: 'reorganised' });
    for (const i of reorged) patch.set(i, { minedAt: undefined });
    change.confirmations = 0;
    history.push({
      status: 'BROADCAST',
      at,
      detail: `reorganised: the block of ${reorged.map((i) => attempts[i]?.txids.join(', ')).join('; ')} left the best chain; waiting to be mined again`,
    });
  }
  if (look.seen[newestK]?.kind === 'unknown') await resendIfDue(deps, look, newest, reorged.length > 0, notes);
  const invalidation = await invalidateIfDue(deps, op, look.now);
  if (invalidation) history.push({ status: 'BROADCAST', at, detail: invalidation.detail });
  if (invalidation?.mark !== undefined) change.refused = invalidation.mark;
  if (deps.config.stuckAfterBlocks > 0 && attempts[newest]?.sentHeight === undefined) {
    const height = (await look.adaptor.health()).height;
    if (height !== undefined) patch.set(newest, { ...patch.get(newest), sentHeight: height });
  }
  if (!op.stuck) {
    const reason = await stuckFor(deps, op, newest, look.now);
    if (reason) {
      change.stuck = { since: at, reason };
      history.push({ status: 'BROADCAST', at, detail: `stuck: ${reason}` });
      deps.metrics?.afterBroadcast.inc({ ledger, event: 'stuck' });
      deps.logger.warn({ withdrawalId: op.id, reason }, 'withdrawal stuck');
    }
  }
  if (history.length || patch.size || (change.confirmations !== undefined && change.confirmations !== op.confirmations)) {
    await deps.store.update(op.id, (o) => ({
      ...o,
      ...change,
      attempts: attemptsOf(o).map((a, i) => (patch.has(i) ? { ...a, ...patch.get(i) } : a)),
      history: [...o.history, ...history],
    }));
  }
}

/** The node no longer knows the newest attempt (`i`): sent again once its doubling delay passed, or at once after a reorganisation. */
async function resendIfDue(deps: PipelineDeps, look: Look, i: number, reorganised: boolean, notes: Notes): Promise<void> {
  const { op, at } = look;
  const a = look.attempts[i] as Attempt;
  const n = a.rebroadcasts ?? 0;
  const delay = Math.min(MAX_RESEND_DELAY_S, deps.config.resendAfterSeconds * 2 ** n) * 1000;
  const last = Date.parse(a.lastSentAt ?? a.sentAt ?? a.createdAt);
  if (!reorganised && look.now.getTime() - last < delay) return;
  const outcome = await resend(deps, op, i);
  const refusals = outcome.refusal ? { refusals: withRefusal(a.refusals, outcome.refusal) } : {};
  notes.patch.set(i, { ...notes.patch.get(i), rebroadcasts: n + 1, lastSentAt: at, ...refusals });
  notes.history.push({ status: 'BROADCAST', at, detail: `sent again (${n + 1}): the node no longer knew ${a.txids.join(', ')}; ${outcome.text}` });
  deps.metrics?.afterBroadcast.inc({ ledger: op.ledgerId, event: 'resent' });
}

async function resend(deps: PipelineDeps, op: Operation, i: number): Promise<{ text: string; refusal?: Refusal }> {
  const adaptor = deps.registry.get(op.ledgerId);
  try {
    for (const tx of signedOf(op, i)) await adaptor.broadcast(tx);
    deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: 'sent' });
    return { text: 'the node took it' };
  } catch (e) {
    // The next look decides: mined elsewhere, spent by another transaction, or sent again later.
    deps.logger.warn({ withdrawalId: op.id, attempt: i, err: (e as Error).message }, 'resend refused');
    return { text: `the node refused it: ${(e as Error).message}`, refusal: refusalOf(e) };
  }
}

/** Why the newest attempt counts as stuck now, or undefined while it is within the thresholds. */
async function stuckFor(deps: PipelineDeps, op: Operation, i: number, now: Date): Promise<string | undefined> {
  const a = attemptsOf(op)[i] as Attempt;
  const adaptor = deps.registry.get(op.ledgerId);
  const waited = Math.floor((now.getTime() - Date.parse(a.sentAt ?? a.createdAt)) / 1000);
  let after: string | undefined;
  if (waited >= deps.config.stuckAfterSeconds) after = `${waited} s`;
  else if (deps.config.stuckAfterBlocks > 0 && a.sentHeight !== undefined) {
    const blocks = ((await adaptor.health()).height ?? a.sentHeight) - a.sentHeight;
    if (blocks >= deps.config.stuckAfterBlocks) after = `${blocks} blocks`;
  }
  if (!after) return undefined;
  const why = await adaptor.stuckReason?.(fromStored(unsignedOf(op, i))).catch(() => undefined);
  return `not mined ${after} after it was sent${why ? `: ${why}` : ''}`;
}
