import { z } from 'zod';
import type { Revision } from './context.js';
import { badRequest, parse } from './problem.js';

export const queryFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const listQuery = z.object({
  filter: z.string().max(200).optional(),
  sort: z
    .string()
    .regex(/^\w+(?::(?:asc|desc))?$/i, 'must be {column}:{asc|desc}')
    .optional(),
  skip: int(0, 2_147_483_647).optional(),
  limit: int(1, 10_000).optional(),
});

/** Parses the list query plus route-specific flags; unknown parameters are refused (400). */
export function listParams<S extends z.ZodRawShape>(query: unknown, extra: S) {
  return parse(listQuery.extend(extra).strict(), query, 'query');
}

/**
 * Filter (case-insensitive substring of the searched text), sort on one of `columns`,
 * then skip and limit, in that order as the spec says. 1.0.1811 answers a plain array.
 */
export function page<T>(
  items: T[],
  q: { filter?: string; sort?: string; skip?: number; limit?: number },
  searched: (item: T) => string,
  columns: Record<string, (item: T) => string | number | boolean>,
  revision: Revision,
): unknown {
  let rows = items;
  if (q.filter) {
    const needle = q.filter.toLowerCase();
    rows = rows.filter((i) => searched(i).toLowerCase().includes(needle));
  }
  const [column = Object.keys(columns)[0] as string, direction = 'asc'] = (q.sort ?? '').split(':');
  const key = Object.keys(columns).find((c) => c.toLowerCase() === column.toLowerCase());
  if (q.sort && !key) throw badRequest(`Unknown sort column '${column}'. Valid values: ${Object.keys(columns).join(', ')}`, 'invalid-arguments');
  const get = columns[key ?? (Object.keys(columns)[0] as string)] as (item: T) => string | number | boolean;
  const sign = direction.toLowerCase() === 'desc' ? -1 : 1;
  rows = [...rows].sort((a, b) => {
    const x = get(a);
    const y = get(b);
    return sign * (typeof x === 'string' ? x.localeCompare(String(y)) : Number(x) - Number(y));
  });
  const skip = q.skip ?? 0;
  const sliced = rows.slice(skip, q.limit === undefined ? undefined : skip + q.limit);
  return revision === '1.0.1811' ? sliced : { totalItems: rows.length, items: sliced };
}
