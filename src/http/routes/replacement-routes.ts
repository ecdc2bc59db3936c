import { z } from 'zod';
import { ConflictError } from '../../platform/errors.js';
import type { ReplacementKind } from '../../ledger/adaptor.js';
import { cancelSignRequest } from '../../withdrawals/cancel-sign-request.js';
import type { Operation } from '../../withdrawals/model/operation.js';
import type { WithdrawalDeps } from '../../withdrawals/pipeline-deps.js';
import { replaceWithdrawal } from '../../withdrawals/replace-withdrawal.js';
import { withdrawalView } from '../../withdrawals/model/withdrawal-view.js';
import { defineRoute } from '../route.js';
import { withdrawalIdParam, withdrawalStatusSchema } from './withdrawal-routes.js';

export const replacementRequestSchema = z
  .object({
    fee: z
      .string()
      .max(40)
      .optional()
      .describe("HIGH, MEDIUM, LOW or a custom constant in the ledger's unit; default one level up and at least the ledger's replacement minimum"),
  })
  .meta({ id: 'ReplacementRequest' })
  .optional();

/**
 * What a cancel does, by where the withdrawal stands: before signing, the custody service's
 * sign operation is canceled (the withdrawal ends FAILED, reservations back); once sent, a
 * replacement that invalidates the original (see LedgerAdaptor.replace) is signed and sent, and whichever
 * transaction the chain takes decides. Other states answer 409.
 */
async function cancelWithdrawal(deps: WithdrawalDeps, vaultId: string, id: string, fee?: string): Promise<Operation> {
  const op = await deps.store.resolveInVault(vaultId, id);
  if (op.status === 'EXECUTING') return cancelSignRequest(deps, op);
  if (op.status === 'BROADCAST' || op.status === 'SIGNED') return replaceWithdrawal(deps, vaultId, op.id, 'cancel', fee);
  throw new ConflictError(`Withdrawal ${op.id} is ${op.status}; there is nothing left to cancel`, 'ERR_NOT_CANCELABLE');
}

/**
 * Speed-up and cancel of a withdrawal: each replacement makes a new attempt with its own
 * custody sign request; whichever transaction the chain takes decides the withdrawal. 409 when
 * the withdrawal is in no state to be replaced (being sent, already final, a replacement still
 * being signed) or its ledger cannot replace it.
 */
export function replacementRoutes(deps: WithdrawalDeps) {
  const params = z.object({ vaultId: z.string().min(1).max(128), id: withdrawalIdParam });
  const route = (kind: ReplacementKind, summary: string, act: (p: { vaultId: string; id: string }, fee?: string) => Promise<Operation>) =>
    defineRoute({
      method: 'post',
      path: `/vaults/:vaultId/withdrawals/:id/${kind}`,
      summary,
      tags: ['wallet'],
      scope: 'withdraw',
      params,
      body: replacementRequestSchema,
      response: withdrawalStatusSchema,
      errors: [404, 409, 422, 502, 503],
      handler: async ({ params: p, body }) => withdrawalView(await act(p, body?.fee)),
    });
  return [
    route('speed-up', 'Replace a broadcast withdrawal by the same transfer with a higher fee (a new sign request)', (p, fee) =>
      replaceWithdrawal(deps, p.vaultId, p.id, 'speed-up', fee),
    ),
    route(
      'cancel',
      'Cancel a withdrawal: still waiting for signatures, its custody sign operation is canceled; broadcast, it is replaced by a transaction that sends the funds back to the vault (a new sign request)',
      (p, fee) => cancelWithdrawal(deps, p.vaultId, p.id, fee),
    ),
  ];
}
