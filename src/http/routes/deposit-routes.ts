import { z } from 'zod';
import { DEPOSIT_STATES, depositViewSchema, type DepositView } from '../../deposits/deposit.js';
import type { DepositStore } from '../../deposits/deposit-store.js';
import type { LedgerRegistry } from '../../ledger/registry.js';
import { InvalidArgumentError, unknownValue } from '../../platform/errors.js';
import type { VaultStore } from '../../vaults/vault-store.js';
import type { AuthContext } from '../auth.js';
import { reachesVault } from '../key-reach.js';
import { defineRoute, listParam } from '../route.js';
import { isoTime } from './admin-withdrawal-routes.js';
import { decodeCursor, encodeCursor, type Cursor } from './cursor.js';

/** Index entries one request reads at most: a rare filter answers a short page with a cursor instead of scanning everything. */
const SCAN_BUDGET = 5000;
const BATCH = 200;

const filters = {
  state: listParam.pipe(z.array(z.enum(DEPOSIT_STATES)).optional()).describe(`One or more of ${DEPOSIT_STATES.join(', ')} (comma-separated or repeated)`),
  ledgerId: z.string().min(1).max(64).optional(),
  asset: z.string().min(1).max(120).optional().describe("The asset's symbol, or an unconfigured token's id"),
  from: isoTime('from').describe('Detected at or after (ISO 8601)'),
  to: isoTime('to').describe('Detected at or before (ISO 8601)'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(300).optional().describe('nextCursor of the previous page'),
};
const vaultQuery = z.object(filters);
const adminQuery = z.object({ ...filters, vaultId: z.string().min(1).max(128).optional() });
type Filter = z.infer<typeof adminQuery>;

const page = z.object({
  items: z.array(depositViewSchema),
  nextCursor: z.string().optional().describe('Present while more may follow; a page can be shorter than limit when few deposits match'),
});

export interface DepositRouteDeps {
  deposits: DepositStore;
  registry: LedgerRegistry;
  vaults: VaultStore;
}

/** A page of deposits, newest first by detection time, filtered; the key's reach applies to every item. */
async function listDeposits(deps: DepositRouteDeps, f: Filter, auth: AuthContext | undefined) {
  if (f.ledgerId && !deps.registry.ids().includes(f.ledgerId)) throw unknownValue('ledgerId', f.ledgerId, deps.registry.ids());
  if (f.from !== undefined && f.to !== undefined && f.from > f.to) throw new InvalidArgumentError('from is later than to');
  let before: Cursor | undefined = f.cursor === undefined ? undefined : decodeCursor(f.cursor);
  const items: DepositView[] = [];
  let scanned = 0;
  const matches = (d: DepositView) =>
    (!f.state?.length || f.state.includes(d.state)) &&
    (!f.ledgerId || d.ledgerId === f.ledgerId) &&
    (!f.asset || d.asset === f.asset) &&
    reachesVault(auth, d.vaultId, d.ledgerId);
  while (items.length < f.limit && scanned < SCAN_BUDGET) {
    const entries = await deps.deposits.idsNewestFirst({
      vaultId: f.vaultId,
      fromMs: f.from ?? 0,
      toMs: f.to ?? Number.MAX_SAFE_INTEGER,
      before,
      count: BATCH,
    });
    if (entries.length === 0) return { items };
    const found = new Map((await deps.deposits.many(entries.map((e) => e.id))).map((d) => [d.depositId, d]));
    for (const e of entries) {
      scanned++;
      before = e;
      const d = found.get(e.id);
      if (d && matches(d)) items.push(d);
      if (items.length === f.limit) break;
    }
  }
  return { items, ...(before ? { nextCursor: encodeCursor(before) } : {}) };
}

export function depositRoutes(deps: DepositRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/vaults/:vaultId/deposits',
      summary: "A vault's deposits, newest first: DETECTED, CONFIRMED at the ledger's confirmations, or REVERTED by a reorganisation",
      tags: ['wallet'],
      scope: 'read',
      params: z.object({ vaultId: z.string().min(1).max(128) }),
      query: vaultQuery,
      response: page,
      errors: [404, 422],
      handler: async ({ params, query, auth }) => {
        await deps.vaults.get(params.vaultId);
        return listDeposits(deps, { ...query, vaultId: params.vaultId }, auth);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/admin/deposits',
      summary: 'Deposits of every vault, newest first, filtered by ledger, vault, asset, state and detection time',
      tags: ['admin'],
      scope: 'admin',
      query: adminQuery,
      response: page,
      errors: [422],
      acrossVaults: 'filter',
      handler: async ({ query, auth }) => listDeposits(deps, query, auth),
    }),
  ];
}
