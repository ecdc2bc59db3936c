import { describe, expect, it } from 'vitest';
import { SCALE_OUT_SETUPS, scaleOutRows, type ScaleOutRun, type ScaleOutUsage } from '../../bench/scale-out.js';

const usage = (more: Partial<ScaleOutUsage>): ScaleOutUsage => ({
  windowSeconds: 2,
  api: [0.2],
  apiPrimary: 0,
  workers: [0.4],
  redis: [0.1],
  anvil: 0.05,
  bench: 0.1,
  machine: 2,
  others: 1.15,
  cores: 2,
  loadAverageBefore: [5, 5, 5],
  loadAverageAfter: [6, 5, 5],
  ...more,
});

const run = (name: 'a' | 'b', more: Partial<ScaleOutRun>): ScaleOutRun => ({
  setup: SCALE_OUT_SETUPS.find((s) => s.name === name) as ScaleOutRun['setup'],
  vaults: 1,
  ownRedis: name === 'b',
  withdrawals: 400,
  drainSeconds: 2,
  broadcastsPerSecond: 200,
  callbackToBroadcastMsP50: 300,
  callbackToBroadcastMsP99: 600,
  callbacksAcceptedSeconds: 1,
  barePerSecond: 500,
  orderOk: true,
  sends: 400,
  distinct: 400,
  failed: 0,
  usage: usage({}),
  ...more,
});

describe('the scale-out rows', () => {
  it('compares the scaled-out set-up with one process of each on one Redis: throughput b over a, p99 a over b', () => {
    const rows = scaleOutRows({
      runs: [
        run('a', {}),
        run('b', {
          broadcastsPerSecond: 100,
          callbackToBroadcastMsP99: 1200,
          usage: usage({ api: [0.1, 0.15], apiPrimary: 0.01, workers: [0.2, 0.3], redis: [0.12, 0, 0] }),
        }),
      ],
    });
    expect(rows).toHaveLength(4);
    expect(rows[0]?.figure).toMatch(/from 1 vault: 2 API \+ 2 workers, 3-master Redis Cluster/);
    expect(rows[0]?.reference).toMatch(/^1 API \+ 1 worker, one Redis: 200/);
    expect(rows[0]?.ratio).toBe(0.5);
    expect(rows[0]?.notes).toMatch(/sends \/ distinct 400 \/ 400 \(a: 400 \/ 400\), none twice met/);
    expect(rows[1]?.ratio).toBe(0.5);
    // What bounds the ratio: every process's share of the cores, the machine's, the load average.
    expect(rows[3]?.notes).toMatch(/API 0\.1 \+ 0\.15 \(\+ primary 0\.01\); workers 0\.2 \+ 0\.3; Redis 0\.12 \/ 0 \/ 0;/);
    expect(rows[3]?.notes).toMatch(/machine 2 of 2 \(other work 1\.15\); load average 5 5 5 → 6 5 5/);
    expect(rows[2]?.notes).toMatch(/\(shared Redis\)/);
    // Cores busy of the set-up's own processes: API, primary, workers, Redis.
    expect(rows[3]?.value).toBe('0.88');
    // 0.88 cores over the 2 s window for 400 withdrawals.
    expect(rows[3]?.notes).toMatch(/^4\.4 ms CPU per withdrawal; /);
  });

  it('pairs the set-ups by the number of vaults, and gives no rows for a count where one set-up did not run', () => {
    const rows = scaleOutRows({
      runs: [run('a', {}), run('b', {}), run('a', { vaults: 4, broadcastsPerSecond: 100 }), run('b', { vaults: 4, broadcastsPerSecond: 150 })],
    });
    expect(rows.map((r) => r.ratio).filter((r) => r !== undefined && r > 0)).toContain(1.5);
    expect(rows.filter((r) => /from 4 vaults/.test(r.figure))).toHaveLength(1);
    expect(scaleOutRows({ runs: [run('a', {}), run('b', { vaults: 4 })] })).toEqual([]);
  });

  it('marks a withdrawal sent twice', () => {
    const [row] = scaleOutRows({ runs: [run('a', {}), run('b', { sends: 401 })] });
    expect(row?.notes).toMatch(/none twice MISSED/);
  });
});
