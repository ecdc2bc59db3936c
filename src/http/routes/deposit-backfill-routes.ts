import { z } from 'zod';
import type { Backfills } from '../../deposits/backfills.js';
import { backfillViewSchema } from '../../deposits/backfill-store.js';
import { NotFoundError } from '../../platform/errors.js';
import { vaultIdSchema } from '../../vaults/vault-schema.js';
import { reachesVault } from '../key-reach.js';
import { defineRoute } from '../route.js';

const body = z.object({
  vaultId: vaultIdSchema,
  fromHeight: z
    .number()
    .int('fromHeight is a block height: a whole number')
    .min(0, 'fromHeight is a block height: 0 or more')
    .max(Number.MAX_SAFE_INTEGER)
    .describe("The first block to read, in the ledger's own numbering (block number, ledger sequence)"),
});

/** The operator's back-fill of a vault's earlier deposits (docs/deposits.md). */
export function depositBackfillRoutes(backfills: Pick<Backfills, 'request' | 'store'>) {
  return [
    defineRoute({
      method: 'post',
      path: '/admin/deposits/backfill',
      summary:
        "Look for a vault's deposits in earlier blocks: from fromHeight up to the block the live scan has read, for that vault's addresses, beside the live scan. Deposits found are told like any other (deposit.detected, deposit.confirmed), once even if the live scan found them too. Replaces the vault's back-fill before, if one runs.",
      tags: ['admin'],
      scope: 'admin',
      body,
      status: 202,
      response: backfillViewSchema,
      errors: [409, 422, 503],
      responses: { 409: { description: "The ledger's deposit scan has not started yet" } },
      // The key's reach was checked by the vault's name; its ledger is known once the vault is read.
      handler: ({ body: b, auth }) => backfills.request(b.vaultId, b.fromHeight, (ledgerId) => reachesVault(auth, b.vaultId, ledgerId)),
    }),
    defineRoute({
      method: 'get',
      path: '/admin/deposits/backfill/:vaultId',
      summary: "The vault's latest back-fill: its range, how far it has read, what it found",
      tags: ['admin'],
      scope: 'admin',
      params: z.object({ vaultId: vaultIdSchema }),
      response: backfillViewSchema,
      errors: [404],
      handler: async ({ params }) => {
        const b = await backfills.store.get(params.vaultId);
        if (!b) throw new NotFoundError(`No deposit back-fill of vault '${params.vaultId}' was asked for`);
        return b;
      },
    }),
  ];
}
