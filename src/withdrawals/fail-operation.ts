import { fromStored, type Operation, type OperationStatus } from './model/operation.js';
import type { PipelineDeps } from './pipeline-deps.js';

/**
 * Ends an operation as FAILED with a reason and gives back what its craft reserved. Giving
 * back is safe even after a broadcast: a nonce or sequence the chain has consumed is
 * discarded by the next reservation, and spent coins are no longer offered by the node.
 */
export async function failOperation(
  deps: Pick<PipelineDeps, 'store' | 'registry' | 'logger'>,
  op: Operation,
  reason: string,
  from: OperationStatus[] = ['EXECUTING', 'SIGNED', 'BROADCAST'],
  change: Partial<Operation> = {},
): Promise<boolean> {
  // A final withdrawal is no longer refused or stuck: those marks speak of a transaction still open.
  const moved = await deps.store.transition(op.id, from, 'FAILED', () => ({ refused: undefined, stuck: undefined, ...change, failureReason: reason }), reason);
  if (!moved) return false;
  deps.logger.warn({ withdrawalId: op.id, operationID: op.operationID, reason }, 'withdrawal failed');
  // One that waited for its vault's setup had nothing crafted, so nothing claimed.
  if (op.unsigned.payloads.length === 0) return true;
  try {
    await deps.registry.get(op.ledgerId).release(fromStored(op.unsigned), op.id);
  } catch (e) {
    deps.logger.error({ err: e, withdrawalId: op.id }, 'could not release reservations; they expire on their own');
  }
  return true;
}
