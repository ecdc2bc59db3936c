import { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { closeClient, redisClient } from '../../src/platform/redis.js';
import { workersReady } from '../../src/withdrawals/jobs/queues.js';
import { testRedis } from '../helpers/redis.js';

/**
 * Queue workers on one shared connection, closed soon after they start (a process stopped while
 * starting; tests that start workers for one step): a close that met a start left BullMQ's
 * start-up commands to fail on the closed connection with nobody listening, an unhandled
 * "Connection is closed." that can end the process.
 */
describe('workersReady', () => {
  const { redis, prefix, url } = testRedis();
  afterAll(() => redis.disconnect());

  it('lets workers closed right after their start close without an unhandled error', async () => {
    const unhandled: unknown[] = [];
    const record = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', record);
    process.on('uncaughtException', record);
    try {
      // The closes land at several points of BullMQ's start-up (connecting, then reading Redis's version).
      for (const afterMs of [0, 2, 5, 10, 20, 0, 2, 5, 10, 20]) {
        const connection = redisClient(url, { maxRetriesPerRequest: null });
        const workers = ['a', 'b', 'c', 'd'].map((name) => new Worker(`ready-${name}`, async () => undefined, { connection, prefix }));
        for (const w of workers) w.on('error', record);
        await workersReady(...workers);
        await new Promise((r) => setTimeout(r, afterMs));
        await Promise.all(workers.map((w) => w.close()));
        await closeClient(connection);
      }
      // A lost start-up command fails when its connection closes: the last close above has happened.
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
      process.off('uncaughtException', record);
    }
  });
});
