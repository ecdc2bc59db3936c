import { z } from 'zod';
import { createWithdrawal } from '../../withdrawals/create-withdrawal.js';
import {
  historyEntrySchema,
  type Operation,
  OPERATION_STATUSES,
  renderedAttemptSchema,
  refusedMarkSchema,
  setupMarkSchema,
  stuckMarkSchema,
  withdrawalRequestRecordSchema,
} from '../../withdrawals/model/operation.js';
import type { Idempotency } from '../../withdrawals/store/idempotency.js';
import type { WithdrawalDeps } from '../../withdrawals/pipeline-deps.js';
import { withdrawalSummary, withdrawalView } from '../../withdrawals/model/withdrawal-view.js';
import { defineRoute } from '../route.js';

export const withdrawalRequestSchema = z
  .object({
    recipientAddress: z.string().max(512).optional(),
    recipientVault: z.string().max(128).optional(),
    asset: z.string().max(80).optional(),
    amount: z.union([z.number(), z.string().max(100)]).describe('Asset units; a string keeps every digit'),
    description: z.string().min(1).max(500),
    fee: z.string().max(40).optional().describe('HIGH, MEDIUM, LOW or a custom constant (see GET /config)'),
    memo: z.string().max(100).optional().describe('Ledger memo where the ledger has one (Stellar)'),
    allowOffCurveRecipient: z
      .boolean()
      .optional()
      .describe(
        'Solana: pay an owner off the ed25519 curve (a program-derived address, which no private key controls: only its program moves what it holds), refused without it. Other ledgers ignore it',
      ),
  })
  .refine((r) => r.recipientAddress || r.recipientVault, 'give recipientAddress or recipientVault')
  .meta({ id: 'WithdrawalRequest' });

export const withdrawalResponseSchema = z.object({
  withdrawalId: z
    .string()
    .describe("This service's own id of the withdrawal: fixed at creation, the same in every answer, webhook event, log line and job; the routes accept it"),
  id: z
    .string()
    .optional()
    .describe(
      "The custody operation id, as in the spec sample; equal to operationID. Absent until the custody service accepted the sign request (never this service's own id)",
    ),
  operationID: z
    .string()
    .optional()
    .describe(
      "The custody service's operation id of the sign request, once the custody service accepted it; absent before (never this service's own id). A fresh 200 of the POST has it, unless the withdrawal waits for its vault's setup (setup); the routes accept it",
    ),
  status: z.enum(OPERATION_STATUSES),
  isComplete: z.boolean(),
  description: z.string(),
  recipientVault: z.string().optional(),
  appData: z.object({ request: withdrawalRequestRecordSchema, txs: z.array(z.object({ serialized: z.string() })) }),
  setup: setupMarkSchema
    .optional()
    .describe(
      "Set when the vault needed a one-time setup first (a Solana vault's durable-nonce account): made as a withdrawal of its own (setup.withdrawalId), after which this one is crafted and sent to be signed; its id and operationID come then",
    ),
  setupFor: z.string().optional().describe("On a vault's setup withdrawal: the withdrawalId of the withdrawal it was made for"),
});

export const withdrawalStatusSchema = withdrawalResponseSchema.extend({
  vaultId: z.string(),
  ledgerId: z.string(),
  txids: z.array(z.string()),
  confirmations: z.number(),
  failureReason: z.string().optional(),
  refused: refusedMarkSchema
    .optional()
    .describe(
      'Set while the node refuses the signed transaction and nothing proves it can never land: the withdrawal is not final (it may still pay), its nonce, coins, sequence or durable nonce stay claimed, and its invalidation is asked for at invalidateAfter (INVALIDATE_REFUSED_AFTER_SECONDS)',
    ),
  stuck: stuckMarkSchema.optional().describe('Set while the sent transaction waits longer than STUCK_AFTER_SECONDS'),
  attempts: z.array(renderedAttemptSchema).describe('The original transaction, then each speed-up or cancel'),
  history: z.array(historyEntrySchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The `{id}` of the withdrawal routes: either id of a withdrawal. */
export const withdrawalIdParam = z
  .string()
  .min(1)
  .max(128)
  .describe("The withdrawal's withdrawalId (this service's own id) or its custody operationID (of the original sign request or of a speed-up or cancel)");

export function withdrawalRoutes(deps: WithdrawalDeps & { idempotency: Idempotency }) {
  const vaultParams = z.object({ vaultId: z.string().min(1).max(128) });
  return [
    defineRoute({
      method: 'post',
      path: '/vaults/:vaultId/withdrawals',
      summary: 'Build a withdrawal and start quorum signing at the custody service',
      tags: ['wallet'],
      scope: 'withdraw',
      params: vaultParams,
      body: withdrawalRequestSchema,
      response: withdrawalResponseSchema,
      errors: [404, 409, 422, 502, 503],
      headers: ['Idempotency-Key'],
      // Withdrawals come in bursts (a payout run): Express's own work is a tenth of what one costs.
      lean: true,
      handler: async ({ params, body, req }) => {
        let made: Operation | undefined;
        const id = await deps.idempotency.run(params.vaultId, req.header('idempotency-key'), body, async (id, claim) => {
          made = await createWithdrawal(deps, params.vaultId, body, id, { claim });
          return made.id;
        });
        // A replayed Idempotency-Key answers with the withdrawal as it stands now.
        return withdrawalSummary(made ?? (await deps.store.get(id)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/vaults/:vaultId/withdrawals/:id',
      summary: 'Where a withdrawal stands: EXECUTING → SIGNED → BROADCAST → CONFIRMED, or FAILED with a reason',
      tags: ['wallet'],
      scope: 'read',
      params: vaultParams.extend({ id: withdrawalIdParam }),
      response: withdrawalStatusSchema,
      errors: [404],
      handler: async ({ params }) => withdrawalView(await deps.store.resolveInVault(params.vaultId, params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/vaults/:vaultId/withdrawals',
      summary: "A vault's withdrawals, newest first",
      tags: ['wallet'],
      scope: 'read',
      params: vaultParams,
      query: z.object({ offset: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(200).default(50) }),
      response: z.object({ totalItems: z.number(), items: z.array(withdrawalStatusSchema) }),
      handler: async ({ params, query }) => {
        const { total, items } = await deps.store.listForVault(params.vaultId, query.offset, query.limit);
        return { totalItems: total, items: items.map(withdrawalView) };
      },
    }),
  ];
}
