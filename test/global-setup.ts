import type { TestProject } from 'vitest/node';
import { ensureRedis } from '../src/dev/local-redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** One real Redis for the whole run: REDIS_URL if it answers, else a throwaway redis-server. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { log: (m) => console.log(m) });
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
