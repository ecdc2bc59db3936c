import { afterAll, describe, expect, it } from 'vitest';
import { closeClient, redisClient } from '../../src/platform/redis.js';
import { testRedis } from '../helpers/redis.js';

/**
 * A queue worker's shared connection is closed after the worker: a command the worker left in
 * flight must get its reply, not a "Connection is closed." rejection nobody is waiting for.
 */
describe('closeClient', () => {
  const { redis, prefix, url } = testRedis();
  afterAll(() => redis.disconnect());

  it('lets the commands already sent finish before the connection closes', async () => {
    const client = redisClient(url, { maxRetriesPerRequest: null });
    await client.set(`${prefix}close`, 'kept');
    // Sent, its reply not read yet, when the close starts.
    const inFlight = client.get(`${prefix}close`);
    await closeClient(client);
    await expect(inFlight).resolves.toBe('kept');
    expect(client.status).toBe('end');
  });

  it('closes a client that never connected without waiting for Redis', async () => {
    const client = redisClient('redis://127.0.0.1:1', { maxRetriesPerRequest: null, lazyConnect: true });
    await closeClient(client);
    expect(client.status).toBe('end');
  });
});
