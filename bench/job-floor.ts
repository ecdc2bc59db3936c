/**
 * `tsx bench/job-floor.ts [jobs]`: what one BullMQ job costs a worker process when the job
 * itself does nothing, the floor under any design that gives each withdrawal a job of its own.
 * One worker at the service's default concurrency (16) takes `jobs` no-op jobs twice: queued
 * all before it starts (a backlog), and added one after another by another process while it
 * runs (as callbacks arrive in a live drain). Prints the worker process's CPU per job for each.
 * Redis: `REDIS_URL` if it answers, else a throwaway `redis-server`; its keys are deleted after.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { ensureRedis } from '../src/dev/local-redis.js';

const QUEUE = 'job-floor';
const CONCURRENCY = 16;
const connect = (url: string) => new Redis(url, { maxRetriesPerRequest: null });
const addOne = (queue: Queue, i: number) => queue.add('noop', { i }, { jobId: `j${i}`, removeOnComplete: 1_000 });

/** The adding process of the live pass: `tsx bench/job-floor.ts --add <url> <prefix> <jobs>`. */
async function addJobs(url: string, prefix: string, jobs: number): Promise<void> {
  const queue = new Queue(QUEUE, { connection: connect(url), prefix });
  for (let i = 0; i < jobs; i++) await addOne(queue, i);
  await queue.close();
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1_000;
};

/** One pass: a fresh queue, one worker, `jobs` no-op jobs; the worker process's CPU per job (ms). */
async function pass(url: string, jobs: number, live: boolean): Promise<number> {
  const prefix = `job-floor-${randomUUID().slice(0, 8)}`;
  const queue = new Queue(QUEUE, { connection: connect(url), prefix });
  if (!live) await queue.addBulk(Array.from({ length: jobs }, (_, i) => ({ name: 'noop', data: { i }, opts: { jobId: `j${i}`, removeOnComplete: 1_000 } })));
  let done = 0;
  let finish = () => undefined as void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const before = cpuMs();
  const worker = new Worker(QUEUE, async () => undefined, { connection: connect(url), prefix, concurrency: CONCURRENCY });
  worker.on('completed', () => {
    if (++done === jobs) finish();
  });
  if (live) spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--add', url, prefix, String(jobs)], { stdio: 'inherit' });
  await finished;
  const perJob = (cpuMs() - before) / jobs;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return perJob;
}

async function main(): Promise<void> {
  const [first, ...rest] = process.argv.slice(2);
  if (first === '--add') return addJobs(rest[0] as string, rest[1] as string, Number(rest[2]));
  const jobs = Number(first ?? 1_000);
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    for (const live of [false, true]) {
      const ms = await pass(redis.url, jobs, live);
      console.log(
        `${live ? 'added one at a time by another process' : 'queued before the worker started'}: ${jobs} no-op jobs, worker CPU ${ms.toFixed(3)} ms per job`,
      );
    }
  } finally {
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
