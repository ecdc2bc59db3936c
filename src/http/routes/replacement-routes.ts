import { z } from 'zod';
import type { ReplacementKind } from '../../ledger/adaptor.js';
import type { PipelineDeps } from '../../pipeline/pipeline-deps.js';
import { replaceWithdrawal } from '../../pipeline/replace-withdrawal.js';
import type { VaultStore } from '../../vaults/vault-store.js';
import { defineRoute } from '../route.js';
import { renderStatus, withdrawalStatusSchema } from './withdrawal-routes.js';

export const replacementRequestSchema = z
  .object({
    fee: z
      .string()
      .max(40)
      .optional()
      .describe("HIGH, MEDIUM, LOW or a custom constant in the ledger's unit; default one level up and at least the ledger's replacement minimum"),
  })
  .meta({ id: 'ReplacementRequest' });

/**
 * Speed-up and cancel of a BROADCAST withdrawal: each makes a new attempt with its own custody
 * sign request; whichever transaction the chain takes decides the withdrawal. 409 when the
 * withdrawal is in no state to be replaced (not yet sent, already final, a replacement still
 * being signed) or its ledger cannot replace it.
 */
export function replacementRoutes(deps: PipelineDeps & { vaults: VaultStore }) {
  const params = z.object({ vaultId: z.string().min(1).max(128), operationID: z.string().min(1).max(128) });
  const route = (kind: ReplacementKind, summary: string) =>
    defineRoute({
      method: 'post',
      path: `/vaults/:vaultId/withdrawals/:operationID/${kind}`,
      summary,
      tags: ['wallet'],
      scope: 'withdraw',
      params,
      body: replacementRequestSchema,
      response: withdrawalStatusSchema,
      errors: [404, 409, 422, 502, 503],
      handler: async ({ params: p, body }) => renderStatus(await replaceWithdrawal(deps, p.vaultId, p.operationID, kind, body.fee)),
    });
  return [
    route('speed-up', 'Replace a broadcast withdrawal by the same transfer with a higher fee (a new sign request)'),
    route('cancel', 'Replace a broadcast withdrawal by a transaction that sends the funds back to the vault (a new sign request)'),
  ];
}
