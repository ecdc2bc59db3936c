import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { jobJournal, runJournaled } from '../../src/withdrawals/jobs/job-journal.js';
import type { OperationStore } from '../../src/withdrawals/store/operation-store.js';
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

  it("a run's lines are one entry of the log, each line with its time, the error that ended it included", async () => {
    const job = await queues.broadcast.add('broadcast', { withdrawalId: 'op-2' });
    const logger = pino({ level: 'silent' });
    const deps = { store: { find: async () => undefined } as unknown as OperationStore, queues, logger };
    const ran = await runJournaled(deps, job, async (journal) => {
      await journal.log('assembled 1 signed transaction(s)');
      void journal.log('sent 0xabc; the node answered: accepted');
      return 'sent';
    });
    expect(ran).toBe('sent');
    await expect(
      runJournaled(deps, job, async (journal) => {
        await journal.log('looked at the node');
        throw new Error('the node is down');
      }),
    ).rejects.toThrow('the node is down');
    const { logs } = await queues.broadcast.getJobLogs(job.id as string, 0, -1);
    expect(logs).toHaveLength(2);
    const time = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
    expect(logs[0]).toMatch(
      new RegExp(`^${time} assembled 1 signed transaction\\(s\\)\\n${time} sent 0xabc; the node answered: accepted\\n${time} done: sent$`),
    );
    expect(logs[1]).toMatch(new RegExp(`^${time} looked at the node\\n${time} attempt 1 ended with an error: the node is down$`));
  });
});
