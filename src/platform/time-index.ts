import type { Redis } from 'ioredis';

/** One entry of a time index: a sorted set of ids scored by milliseconds since the epoch. */
export interface TimeIndexEntry {
  id: string;
  ms: number;
}

/** A page of a time index, newest first: the ids scored in [fromMs, toMs], after `before` (the last entry of a previous page). */
export interface TimePage {
  fromMs: number;
  toMs: number;
  before?: TimeIndexEntry;
  count: number;
}

/**
 * Reads one page of the time index at `key`, newest first. Entries of one millisecond come in
 * reverse member order; the ones up to the cursor's id were on earlier pages, so they are skipped.
 */
export async function idsNewestFirst(redis: Redis, key: string, page: TimePage): Promise<TimeIndexEntry[]> {
  const max = page.before ? Math.min(page.before.ms, page.toMs) : page.toMs;
  const out: TimeIndexEntry[] = [];
  const skipTies = (e: TimeIndexEntry) => page.before !== undefined && e.ms === page.before.ms && e.id >= page.before.id;
  let offset = 0;
  while (out.length < page.count) {
    const flat = await redis.zrevrangebyscore(key, max, page.fromMs, 'WITHSCORES', 'LIMIT', offset, page.count);
    if (flat.length === 0) break;
    offset += flat.length / 2;
    for (let i = 0; i < flat.length; i += 2) {
      const e = { id: flat[i] as string, ms: Number(flat[i + 1]) };
      if (!skipTies(e) && out.length < page.count) out.push(e);
    }
  }
  return out;
}
