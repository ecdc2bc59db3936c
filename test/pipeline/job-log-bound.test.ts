import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { jobJournal } from '../../src/withdrawals/jobs/job-journal.js';
import { createQueues, JOB_LOG_LINES } from '../../src/withdrawals/jobs/queues.js';
import { testRedis } from '../helpers/redis.js';

describe("a job's log", () => {
  const { redis, prefix, url } = testRedis();
  const config = loadConfig(
    {
      REDIS_URL: url,
      REDIS_PREFIX: prefix.replace(/:$/, ''),
      LEDGERS: JSON.stringify({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }),
      CUSTODY_URL: 'http://127.0.0.1:9/custody',
      API_KEYS: JSON.stringify([{ name: 'admin', key: 'test-admin-key-0123456789abcdef0123', scopes: ['admin'] }]),
    },
    families,
    'test',
  );
  const queues = createQueues(redis, config);
  afterAll(async () => {
    await queues.broadcast.obliterate({ force: true });
    await queues.close();
    redis.disconnect();
  });

  it('keeps its newest lines only: a job that runs again and again (waiting for its predecessor) does not grow it without end', async () => {
    const job = await queues.broadcast.add('broadcast', { withdrawalId: 'op-1' });
    const journal = jobJournal(job, pino({ level: 'silent' }));
    const written = JOB_LOG_LINES + 50;
    for (let i = 0; i < written; i++) await journal.log(`run ${i}`);
    const { logs, count } = await queues.broadcast.getJobLogs(job.id as string, 0, -1);
    expect(count).toBe(JOB_LOG_LINES);
    expect(logs[0]).toMatch(/ run 50$/);
    expect(logs.at(-1)).toMatch(new RegExp(` run ${written - 1}$`));
  });
});
