import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/** A client of the run's real Redis, and a key prefix no other test file shares, under the run's (deleted when the run ends). */
export function testRedis(): { redis: Redis; prefix: string; url: string } {
  const url = inject('redisUrl');
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  return { redis, prefix: `${inject('runPrefix')}${randomUUID()}:`, url };
}
