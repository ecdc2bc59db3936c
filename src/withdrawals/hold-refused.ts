import { AppError } from '../platform/errors.js';
import { type Operation, type Refusal, type RefusedMark, withAttempt, withRefusal } from './model/operation.js';
import type { PipelineDeps } from './pipeline-deps.js';

/** What is stored of a node's refusal: its words, its code, when, and the back end that answered where the error names it. */
export function refusalOf(e: unknown, at = new Date().toISOString()): Refusal {
  const node = e instanceof AppError && typeof e.fields.node === 'string' ? e.fields.node : undefined;
  return {
    at,
    answer: e instanceof AppError ? e.details : (e as Error).message,
    errCode: e instanceof AppError ? e.errCode : 'ERR_NODE_REJECTED',
    ...(node ? { node } : {}),
  };
}

/** The `refused` mark a first refusal sets: when the service asks for the invalidation, unless that is left to the operator (0). */
function markOf(deps: Pick<PipelineDeps, 'config'>, r: Refusal): RefusedMark {
  const after = deps.config.invalidateRefusedAfterSeconds;
  return {
    since: r.at,
    answer: r.answer,
    errCode: r.errCode,
    ...(after > 0 ? { invalidateAfter: new Date(Date.parse(r.at) + after * 1000).toISOString() } : {}),
  };
}

/**
 * The node refused the original signed transaction of a SIGNED withdrawal, and the refusal does
 * not prove that it can never land (no funds yet, a fee under that node's floor, an account's
 * state in preflight, a lagging node). Ending it FAILED would be a guess: the same bytes may
 * still reach the ledger, sent again by this service or by anyone who holds them (the unsigned
 * transaction is in the API view; the recipient can see it). So it moves on to BROADCAST, the
 * signed bytes having left the service, with the refusal on its attempt and the `refused` mark;
 * its nonce, coins, sequence or durable nonce stay claimed. The confirmation job then follows it
 * like any sent transaction: sends it again while the node does not know it, follows it once
 * mined, ends it FAILED only on proof, and asks for its invalidation at `invalidateAfter`.
 * Returns the withdrawal as moved, or undefined when it had left SIGNED meanwhile.
 */
export async function holdRefused(
  deps: Pick<PipelineDeps, 'store' | 'config' | 'logger' | 'metrics'>,
  op: Operation,
  e: unknown,
): Promise<Operation | undefined> {
  const refusal = refusalOf(e);
  const moved = await deps.store.transition(
    op.id,
    ['SIGNED'],
    'BROADCAST',
    (o) => ({
      refused: o.refused ?? markOf(deps, refusal),
      attempts: withAttempt(o, 0, (a) => ({
        ...a,
        status: 'broadcast',
        sentAt: a.sentAt ?? refusal.at,
        lastSentAt: refusal.at,
        refusals: withRefusal(a.refusals, refusal),
      })),
    }),
    `refused by the node: ${refusal.answer}; not failed, since nothing proves the signed transaction can never land: it stays claimed and watched`,
    op,
  );
  if (moved) {
    deps.metrics?.afterBroadcast.inc({ ledger: op.ledgerId, event: 'refused' });
    deps.logger.warn({ withdrawalId: op.id, answer: refusal.answer, errCode: refusal.errCode }, 'signed transaction refused by the node; withdrawal held open');
  }
  return moved;
}
