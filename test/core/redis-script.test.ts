import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { luaScript } from '../../src/platform/redis-script.js';
import { testRedis } from '../helpers/redis.js';

/** The typed script helper: the key count follows from the keys passed, which the declaration fixes. */
describe('luaScript', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());

  // A source of its own: the first run finds it unknown to Redis (NOSCRIPT) and sends it whole.
  const echo = luaScript({ keys: ['a', 'b'], args: ['x'], returns: '{KEYS, ARGV}' }, `-- ${randomUUID()}\nreturn {KEYS, ARGV}`);
  const rest = luaScript({ keys: ['first', '...more'], args: ['...values'], returns: 'the key and argument counts' }, `return {#KEYS, #ARGV}`);

  it('runs with the declared keys and arguments, loading the script when Redis does not know it', async () => {
    const [a, b] = [`${prefix}{t}a`, `${prefix}{t}b`];
    expect(await redis.script('EXISTS', echo.sha)).toEqual([0]);
    expect(await echo.run(redis, [a, b], ['1'])).toEqual([[a, b], ['1']]);
    expect(await echo.run(redis, [a, b], [2])).toEqual([[a, b], ['2']]);
    expect(await rest.run(redis, [a], [])).toEqual([1, 0]);
    expect(await rest.run(redis, [a, b, `${prefix}{t}c`], ['1', '2'])).toEqual([3, 2]);
  });

  it('refuses a wrong number of keys or arguments before it reaches Redis', async () => {
    const unreachable = {
      evalsha: () => Promise.reject(new Error('reached Redis')),
      eval: () => Promise.reject(new Error('reached Redis')),
    } as unknown as Parameters<typeof echo.run>[0];
    // @ts-expect-error one key too few
    await expect(echo.run(unreachable, ['a'], ['1'])).rejects.toThrow(/1 keys given, 2 expected/);
    // @ts-expect-error one argument too many
    await expect(echo.run(unreachable, ['a', 'b'], ['1', '2'])).rejects.toThrow(/2 arguments given, 1 expected/);
    const none: string[] = [];
    // @ts-expect-error the first key is required
    await expect(rest.run(unreachable, none, [])).rejects.toThrow(/0 keys given, at least 1 expected/);
  });
});
