import { CustodyRequestError } from '../custody/errors.js';
import { endedUnsigned } from '../custody/types.js';
import { AppError, ConflictError } from '../platform/errors.js';
import { failOperation } from './fail-operation.js';
import type { Operation } from './model/operation.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { endedReason } from './settle-from-custody.js';

/**
 * 409 (retryable): the withdrawal's sign request may still be on its way to the custody
 * service, so there is no sign operation to cancel yet; a cancel a few seconds later finds it.
 */
export class SignRequestInFlightError extends AppError {
  constructor(withdrawal: string) {
    super(
      409,
      'ERR_SIGN_REQUEST_IN_FLIGHT',
      'Conflict',
      `The sign request of withdrawal ${withdrawal} is on its way to the custody service; cancel again in a few seconds`,
      true,
    );
  }
}

/**
 * Cancels a withdrawal still waiting for its quorum: asks the custody service to cancel the
 * sign operation (`POST {mng}/operations/{id}/cancel`) and, once it has confirmed, ends the
 * withdrawal FAILED and gives its nonce, sequence or coins back. A sign operation the quorum
 * completed first is not canceled (409): its signatures take the usual path. While the sign
 * request may still be on its way there is nothing to cancel yet (409, SignRequestInFlightError).
 * A withdrawal older than the longest sign request and still without a sign operation never
 * got its request out: it is failed here alone.
 */
export async function cancelSignRequest(deps: PipelineDeps, op: Operation): Promise<Operation> {
  const label = op.id;
  if (op.status !== 'EXECUTING')
    throw new ConflictError(
      `Withdrawal ${label} is ${op.status}; only a withdrawal waiting for signatures (EXECUTING) can have its signing canceled`,
      'ERR_NOT_CANCELABLE',
    );
  if (op.setup?.status === 'waiting') {
    // Nothing was crafted or sent to be signed yet; the setup goes on (the vault keeps what it makes).
    await failOperation(deps, op, `canceled on request while it waited for its vault's ${op.setup.kind} setup`, ['EXECUTING']);
    return settled(deps, op);
  }
  if (!op.operationID) {
    if (signRequestMayBeInFlight(deps, op)) throw new SignRequestInFlightError(label);
    await failOperation(deps, op, 'canceled on request before the sign request reached the custody service', ['EXECUTING']);
    return settled(deps, op);
  }
  try {
    await deps.custody.cancelOperation(op.operationID);
  } catch (e) {
    if (!(e instanceof CustodyRequestError && e.problem.upstreamStatus === 409)) throw e;
    // The service would not cancel: the operation has ended already. See how.
    const remote = await deps.custody.getSignOperation(op.operationID);
    if (!endedUnsigned(remote.status)) {
      throw new ConflictError(`The custody service did not cancel sign operation ${op.operationID}: it is ${remote.status}`, 'ERR_NOT_CANCELABLE');
    }
    await failOperation(deps, op, endedReason(remote), ['EXECUTING']);
    return settled(deps, op);
  }
  // Confirmed. A quorum that signed in the same instant wins: its lookup says COMPLETED.
  const remote = await deps.custody.getSignOperation(op.operationID).catch(() => undefined);
  if (remote?.status.toUpperCase() === 'COMPLETED') {
    throw new ConflictError(`Sign operation ${op.operationID} was completed by the quorum before the cancel took effect`, 'ERR_NOT_CANCELABLE');
  }
  // The lookup may still say PENDING where the service cancels asynchronously: its 200 is the confirmation.
  const ended = remote && endedUnsigned(remote.status) ? remote : { status: 'CANCELED' };
  await failOperation(deps, op, endedReason(ended, 'canceled on request: '), ['EXECUTING']);
  return settled(deps, op);
}

/**
 * The creation's sign request starts right after the record is stored (`createdAt`) and ends,
 * answered or given up, within the connector's longest call.
 */
function signRequestMayBeInFlight(deps: Pick<PipelineDeps, 'custody'>, op: Operation): boolean {
  return Date.now() - Date.parse(op.createdAt) < deps.custody.longestCallMs;
}

/** The record after the attempt; a concurrent callback may have moved it first. */
async function settled(deps: PipelineDeps, op: Operation): Promise<Operation> {
  const now = await deps.store.get(op.id);
  if (now.status !== 'FAILED') throw new ConflictError(`Withdrawal ${op.id} moved to ${now.status} meanwhile; it was not canceled`, 'ERR_NOT_CANCELABLE');
  return now;
}
