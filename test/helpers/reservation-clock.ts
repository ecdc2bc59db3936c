import type { Redis } from 'ioredis';
import { reservationKeys } from '../../src/platform/redis-keys.js';

/**
 * Moves the since-when of every number reserved in `scope` `ms` back on Redis' clock (the `n:since`
 * fields, ms): to the reservation scripts, which compare them with Redis' `TIME`, as if `ms` had
 * passed. A test of the orphan grace period then needs no wait. A since-when that is not a time
 * (an earlier version's marker) is left as it is.
 */
export async function ageReservations(redis: Redis, prefix: string, scope: string, ms: number): Promise<void> {
  const { owners } = reservationKeys(prefix).sequence(scope);
  const fields = await redis.hgetall(owners);
  const moved = Object.entries(fields).flatMap(([field, value]) =>
    field.endsWith(':since') && /^\d+$/.test(value) ? [field, String(Number(value) - ms)] : [],
  );
  if (moved.length > 0) await redis.hset(owners, ...moved);
}
