import { isRetryable } from '../platform/errors.js';
import { attemptsOf, type Operation, type RefusedMark } from './model/operation.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { replaceWithdrawal } from './replace-withdrawal.js';

/** What a look notes when the invalidation of a refused withdrawal was due: a history line, and the mark without its due time. */
export interface InvalidationNote {
  detail: string;
  mark: RefusedMark;
}

/**
 * A withdrawal whose signed transaction the node refused stays open until something proves it
 * paid or never can. Once `refused.invalidateAfter` has passed (INVALIDATE_REFUSED_AFTER_SECONDS
 * after the first refusal) the service makes the second happen: it asks for a cancel, the
 * ledger's invalidation of the original (see `LedgerAdaptor.replace`), through its own custody
 * sign request, as the cancel route does. Then whichever lands decides: the original, CONFIRMED;
 * the cancel, FAILED with the reason. Asked once: the mark loses its due time whatever the
 * answer, except a retryable one (the custody service down), which the next look tries again.
 */
export async function invalidateIfDue(deps: PipelineDeps, op: Operation, now: Date): Promise<InvalidationNote | undefined> {
  const due = op.refused?.invalidateAfter;
  if (!op.refused || !due || now.getTime() < Date.parse(due)) return undefined;
  const { invalidateAfter: _due, ...mark } = op.refused;
  if (attemptsOf(op).some((a) => a.kind === 'cancel' && a.status !== 'failed')) {
    return { detail: 'invalidation due: a cancel is already under way', mark };
  }
  try {
    const asked = await replaceWithdrawal(deps, op.vaultId, op.id, 'cancel');
    const cancel = attemptsOf(asked).at(-1);
    deps.metrics?.afterBroadcast.inc({ ledger: op.ledgerId, event: 'invalidation' });
    deps.logger.warn({ withdrawalId: op.id, operationID: cancel?.operationID }, 'refused withdrawal: invalidation asked for');
    return {
      detail: `invalidation asked for: the node refused the signed transaction since ${mark.since}; a cancel goes to the custody service${cancel?.operationID ? ` (sign request ${cancel.operationID})` : ''}, and whichever lands decides`,
      mark,
    };
  } catch (e) {
    if (isRetryable(e)) {
      deps.logger.warn({ withdrawalId: op.id, err: (e as Error).message }, 'invalidation of a refused withdrawal not asked for yet; trying again');
      return undefined;
    }
    return { detail: `invalidation not possible: ${(e as Error).message}`, mark };
  }
}
