import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { ensureRedis } from '../src/dev/local-redis.js';
import { deleteKeysUnder } from '../src/dev/prefix-keys.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** Every test file's keys are under it (`testRedis`), so the run deletes them when it ends. */
    runPrefix: string;
  }
}

/**
 * One real Redis for the whole run: REDIS_URL if it answers, else a throwaway redis-server.
 * The keys the run's files wrote under the run's prefix are deleted when it ends: a developer's
 * Redis does not fill up run after run, and a run beside it (another prefix) is left alone.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { log: (m) => console.log(m) });
  const runPrefix = `test:${randomUUID().slice(0, 8)}:`;
  project.provide('redisUrl', redis.url);
  project.provide('runPrefix', runPrefix);
  return async () => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      await deleteKeysUnder(client, runPrefix);
    } finally {
      client.disconnect();
      await redis.stop();
    }
  };
}
