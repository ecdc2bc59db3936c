import type { Redis } from 'ioredis';

/** A Redis glob that matches `text` literally. */
const globLiteral = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** Every key that starts with `prefix` (taken literally), by SCAN: never a blocking KEYS. */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${globLiteral(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** Deletes `keys` (UNLINK, 500 a command); resolves with how many were asked. */
export async function unlinkAll(redis: Redis, keys: readonly string[]): Promise<number> {
  for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
  return keys.length;
}

/** Deletes every key under `prefix`: what a bench run or a test run wrote under its own prefix. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<number> {
  return unlinkAll(redis, await keysUnder(redis, prefix));
}
