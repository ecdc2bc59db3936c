import { z } from 'zod';
import { InvalidArgumentError, unknownValue } from '../../platform/errors.js';
import { OPERATION_STATUSES, type Operation } from '../../withdrawals/model/operation.js';
import type { PipelineDeps } from '../../withdrawals/pipeline-deps.js';
import { withdrawalView } from '../../withdrawals/model/withdrawal-view.js';
import { reachesVault } from '../key-reach.js';
import { defineRoute, listParam } from '../route.js';
import { decodeCursor, encodeCursor, type Cursor } from './cursor.js';
import { withdrawalStatusSchema } from './withdrawal-routes.js';

/** Index entries one request reads at most: a rare filter answers a short page with a cursor instead of scanning everything. */
const SCAN_BUDGET = 5000;
const BATCH = 200;

export const isoTime = (name: string) =>
  z
    .string()
    .max(40)
    .refine((v) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), {
      message: `${name} must be an ISO 8601 time, e.g. 2026-11-23T10:00:00Z`,
    })
    .transform((v) => Date.parse(v))
    .optional();

const query = z.object({
  status: listParam
    .pipe(z.array(z.enum(OPERATION_STATUSES)).optional())
    .describe(`One or more of ${OPERATION_STATUSES.join(', ')} (comma-separated or repeated)`),
  ledgerId: z.string().min(1).max(64).optional(),
  vaultId: z.string().min(1).max(128).optional(),
  stuck: z.enum(['true', 'false']).optional().describe('true: only withdrawals flagged stuck; false: only the others'),
  from: isoTime('from').describe('Created at or after (ISO 8601)'),
  to: isoTime('to').describe('Created at or before (ISO 8601)'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(300).optional().describe('nextCursor of the previous page'),
});

type Filter = z.infer<typeof query>;

/** `stuck` is set by the confirmation watch on a transaction that does not progress. */
function matches(op: Operation & { stuck?: unknown }, f: Filter): boolean {
  if (f.status?.length && !f.status.includes(op.status)) return false;
  if (f.ledgerId && op.ledgerId !== f.ledgerId) return false;
  if (f.stuck !== undefined && (op.stuck !== undefined && op.stuck !== null) !== (f.stuck === 'true')) return false;
  return true;
}

export function adminWithdrawalRoutes(deps: Pick<PipelineDeps, 'store' | 'registry'>) {
  return [
    defineRoute({
      method: 'get',
      path: '/admin/withdrawals',
      summary: 'Withdrawals of every vault, newest first, filtered by status, ledger, vault, stuck and creation time',
      tags: ['admin'],
      scope: 'admin',
      query,
      response: z.object({
        items: z.array(withdrawalStatusSchema),
        nextCursor: z.string().optional().describe('Present while more may follow; a page can be shorter than limit when few withdrawals match'),
      }),
      errors: [422],
      acrossVaults: 'filter',
      handler: async ({ query: f, auth }) => {
        if (f.ledgerId && !deps.registry.ids().includes(f.ledgerId)) throw unknownValue('ledgerId', f.ledgerId, deps.registry.ids());
        if (f.from !== undefined && f.to !== undefined && f.from > f.to) throw new InvalidArgumentError('from is later than to');
        let before: Cursor | undefined = f.cursor === undefined ? undefined : decodeCursor(f.cursor);
        const items: Operation[] = [];
        let scanned = 0;
        while (items.length < f.limit && scanned < SCAN_BUDGET) {
          const entries = await deps.store.idsNewestFirst({
            vaultId: f.vaultId,
            fromMs: f.from ?? 0,
            toMs: f.to ?? Number.MAX_SAFE_INTEGER,
            before,
            count: BATCH,
          });
          if (entries.length === 0) return { items: items.map(withdrawalView) };
          const ops = new Map((await deps.store.many(entries.map((e) => e.id))).map((op) => [op.id, op]));
          for (const e of entries) {
            scanned++;
            before = e;
            const op = ops.get(e.id);
            if (op && matches(op, f) && reachesVault(auth, op.vaultId, op.ledgerId)) items.push(op);
            if (items.length === f.limit) break;
          }
        }
        return { items: items.map(withdrawalView), ...(before ? { nextCursor: encodeCursor(before) } : {}) };
      },
    }),
  ];
}
