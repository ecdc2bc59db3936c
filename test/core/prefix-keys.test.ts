import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeysUnder, keysUnder } from '../../src/dev/prefix-keys.js';
import { testRedis } from '../helpers/redis.js';

const { redis, prefix } = testRedis();

/** What a bench run and a test run delete when they end: their own prefix's keys, and nothing else. */
describe('the keys under a prefix', () => {
  afterAll(() => redis.disconnect());

  it('deletes every key under the prefix, taken literally, and leaves its neighbours', async () => {
    const own = `${prefix}a*[b]?:`;
    for (let i = 0; i < 1_200; i++) await redis.set(`${own}k${i}`, '1');
    await redis.hset(`${own}hash`, 'f', 'v');
    // Keys a glob of the same text would take: `*`, `[b]` and `?` are no wildcards here.
    const neighbours = [`${prefix}ax[b]?:k`, `${prefix}a*b?:k`, `${prefix}a*[b]x:k`, `${prefix}a*[b]:k`];
    for (const k of neighbours) await redis.set(k, 'stays');
    expect((await keysUnder(redis, own)).length).toBe(1_201);
    expect(await deleteKeysUnder(redis, own)).toBe(1_201);
    expect(await keysUnder(redis, own)).toEqual([]);
    expect((await keysUnder(redis, prefix)).sort()).toEqual([...neighbours].sort());
    expect(await deleteKeysUnder(redis, prefix)).toBe(4);
  });
});
