import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/platform/config-error.js';
import { freshSandboxState } from '../../src/dev/sandbox/sandbox-state.js';
import { profileKey } from '../../src/platform/redis-keys.js';
import { testRedis } from '../helpers/redis.js';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';

const { redis, prefix, url } = testRedis();
const all = async (p: string) => (await redis.keys(`${p}*`)).sort();

describe('the sandbox starts on fresh Redis data', () => {
  afterAll(async () => {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it('empties a prefix an earlier sandbox start marked, keeping its marker', async () => {
    const bare = `${prefix}sbx`;
    await redis.set(profileKey(`${bare}:`), 'sandbox');
    await redis.set(`${bare}:op:1`, '{}');
    await redis.hset(`${bare}:custody-emulator:vault:1`, 'a', 'b');
    await redis.set(`${bare}:withdrawals:meta`, 'x');
    // A longer prefix with its own marker is another deployment's.
    await redis.set(profileKey(`${bare}:other:`), 'production');
    await redis.set(`${bare}:other:op:1`, '{}');
    // A neighbour that only starts the same way.
    await redis.set(`${bare}x:op:1`, '{}');
    expect(await freshSandboxState(url, bare)).toBe(3);
    expect(await all(`${bare}:`)).toEqual([`${bare}:other:op:1`, `${bare}:other:profile`, `${bare}:profile`]);
    expect(await redis.get(`${bare}x:op:1`)).toBe('{}');
    expect(await freshSandboxState(url, bare)).toBe(0);
  });

  it('claims an unmarked prefix without deleting what it holds', async () => {
    const bare = `${prefix}old`;
    await redis.set(`${bare}:op:1`, '{}');
    expect(await freshSandboxState(url, bare)).toBe(0);
    expect(await all(`${bare}:`)).toEqual([`${bare}:op:1`, `${bare}:profile`]);
    expect(await redis.get(profileKey(`${bare}:`))).toBe('sandbox');
  });

  it('refuses a production prefix and touches none of its keys', async () => {
    const bare = `${prefix}prod`;
    await redis.set(profileKey(`${bare}:`), 'production');
    await redis.set(`${bare}:op:1`, '{}');
    await expect(freshSandboxState(url, bare)).rejects.toBeInstanceOf(ConfigError);
    expect(await all(`${bare}:`)).toEqual([`${bare}:op:1`, `${bare}:profile`]);
  });
});
