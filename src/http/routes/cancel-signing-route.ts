import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../errors.js';
import { cancelSignRequest } from '../../pipeline/cancel-sign-request.js';
import type { Operation } from '../../pipeline/operation.js';
import type { PipelineDeps } from '../../pipeline/pipeline-deps.js';
import { defineRoute } from '../route.js';
import { withdrawalView } from '../../pipeline/withdrawal-view.js';
import { withdrawalStatusSchema } from './withdrawal-routes.js';

/**
 * What a cancel request does, by where the withdrawal stands. Before signing, the custody
 * service's sign operation is canceled; a transaction already out on the ledger needs a
 * replacement transaction, which this route does not build yet (409).
 */
export async function cancelWithdrawal(deps: PipelineDeps, op: Operation): Promise<Operation> {
  switch (op.status) {
    case 'EXECUTING':
      return cancelSignRequest(deps, op);
    case 'BROADCAST':
      throw new ConflictError(`Withdrawal ${op.operationID ?? op.id} is already on the ledger (BROADCAST); it cannot be canceled here`, 'ERR_NOT_CANCELABLE');
    default:
      throw new ConflictError(`Withdrawal ${op.operationID ?? op.id} is ${op.status}; only a withdrawal waiting for signatures (EXECUTING) can be canceled`, 'ERR_NOT_CANCELABLE');
  }
}

export function cancelSigningRoute(deps: PipelineDeps) {
  return defineRoute({
    method: 'post',
    path: '/vaults/:vaultId/withdrawals/:operationID/cancel',
    summary: 'Cancel a withdrawal still waiting for quorum signatures: the custody sign operation is canceled, the withdrawal ends FAILED and its reservations are freed',
    tags: ['wallet'],
    scope: 'withdraw',
    params: z.object({ vaultId: z.string().min(1).max(128), operationID: z.string().min(1).max(128) }),
    response: withdrawalStatusSchema,
    errors: [404, 409, 502, 503],
    handler: async ({ params }) => {
      const op = await deps.store.resolve(params.operationID);
      if (!op || op.vaultId !== params.vaultId) throw new NotFoundError(`No withdrawal ${params.operationID} in vault ${params.vaultId}`);
      return withdrawalView(await cancelWithdrawal(deps, op));
    },
  });
}
