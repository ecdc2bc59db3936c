/**
 * `npm run faults` (`-- --quick` for a smaller run, `-- multi-process redis-loss` for chosen
 * scenarios): starts what each scenario needs on this machine and prints one table of
 * figures; writes faults/results/latest.json. Exits 1 when anything was lost, sent twice or
 * answered with an unexpected 5xx.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { ensureRedis } from '../src/dev/local-redis.js';
import { fuzzScenario } from './scenarios/fuzz.js';
import { multiProcess, type ScenarioContext } from './scenarios/multi-process.js';
import { redisCluster } from './scenarios/redis-cluster.js';
import { redisLoss } from './scenarios/redis-loss.js';
import { RESULTS } from './stack.js';
import type { Tally } from './withdrawals.js';

const SCENARIOS: Record<string, (ctx: ScenarioContext) => Promise<Tally>> = {
  'multi-process': (ctx) => multiProcess(ctx),
  'redis-cluster': redisCluster,
  'redis-loss': redisLoss,
  fuzz: fuzzScenario,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const chosen = args.filter((a) => !a.startsWith('--'));
  const unknown = chosen.filter((c) => !SCENARIOS[c]);
  if (unknown.length) {
    process.stderr.write(`Unknown scenario ${unknown.join(', ')}. Valid values: ${Object.keys(SCENARIOS).join(', ')}\n`);
    process.exit(2);
  }
  const t0 = Date.now();
  const log = (m: string) => process.stderr.write(`[faults ${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}\n`);
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { log });
  const ctx: ScenarioContext = { redisUrl: redis.url, run: randomUUID().slice(0, 8), size: quick ? 'quick' : 'full', log };
  const tallies: Tally[] = [];
  try {
    for (const name of chosen.length ? chosen : Object.keys(SCENARIOS)) {
      log(`scenario ${name}`);
      try {
        tallies.push(await (SCENARIOS[name] as (c: ScenarioContext) => Promise<Tally>)(ctx));
      } catch (e) {
        tallies.push({
          scenario: name,
          withdrawalsIn: 0,
          confirmed: 0,
          failed: {},
          lost: 0,
          sentTwice: 0,
          answers503: 0,
          answers5xxOther: 0,
          seconds: 0,
          notes: [`did not run to the end: ${(e as Error).message.split('\n')[0]}`],
        });
      }
    }
  } finally {
    await redis.stop();
  }
  const rows = tallies.map((t) => ({
    scenario: t.scenario,
    in: t.withdrawalsIn,
    CONFIRMED: t.confirmed,
    FAILED:
      Object.entries(t.failed)
        .map(([r, n]) => `${n} (${r})`)
        .join('; ') || '0',
    lost: t.lost,
    'sent twice': t.sentTwice,
    '503': t.answers503,
    'other 5xx': t.answers5xxOther,
    seconds: t.seconds,
  }));
  console.table(rows);
  for (const t of tallies) for (const n of t.notes.slice(0, 12)) console.log(`  ${t.scenario}: ${n}`);
  mkdirSync(RESULTS, { recursive: true });
  const machine = `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  writeFileSync(path.join(RESULTS, 'latest.json'), JSON.stringify({ date: new Date().toISOString(), machine, quick, tallies }, null, 2));
  const bad = tallies.some((t) => t.lost > 0 || t.sentTwice > 0 || t.answers5xxOther > 0 || t.notes.some((n) => n.startsWith('did not run')));
  process.exit(bad ? 1 : 0);
}

void main();
