import { describe, expect, it } from 'vitest';
import { depositRows, type DepositFigures } from '../../bench/deposits.js';
import { formatTable } from '../../bench/table.js';
import { pct } from '../../bench/stats.js';

const figures = (over: { scannerPerSecond?: number; p99?: number; rssMB?: number } = {}): DepositFigures => ({
  watched: 10_000,
  scan: {
    blocks: 300,
    detected: 300,
    scannerPerSecond: over.scannerPerSecond ?? 90,
    barePerSecond: 180,
    ratio: (over.scannerPerSecond ?? 90) / 180,
    chunkRatios: [0.41, 0.62],
    watchedBuildSeconds: 3.1,
    perBlockMs: { fetch: 5, step: 4, other: 2.1, bare: 5.6 },
  },
  latency: [
    { pollMs: 2000, payments: 40, msP50: 1100, msP99: over.p99 ?? 2050, msMax: 2060 },
    { pollMs: 200, payments: 40, msP50: 120, msP99: 260, msMax: 270 },
  ],
  worker: {
    pollMs: 2000,
    rssAtStartMB: 120,
    rssAfterLoadMB: 130,
    rssMB: over.rssMB ?? 110,
    settledAfterSeconds: 15,
    peakRssMB: 140,
    heapUsedMB: 40,
    heapCommittedMB: 60,
    newSpaceMB: 2,
    externalMB: 3,
    majorGCs: 4,
    noScan: {
      rssAfterLoadMB: 99,
      rssMB: 99,
      settledAfterSeconds: 15,
      peakRssMB: 100,
      heapUsedMB: 35,
      heapCommittedMB: 40,
      newSpaceMB: 1,
      externalMB: 3,
      majorGCs: 2,
    },
  },
  watchedMap: { addresses: 100_000, buildSeconds: 30, bytes: 37.5 * 2 ** 20 },
});

describe('the deposits phase in the bench table', () => {
  it('gives the scan rate against the bare fetch, each latency against its poll interval, the memory figures, each with its target', () => {
    const rows = depositRows(figures());
    expect(rows.map((r) => [r.figure.split(',')[0], r.ratio])).toEqual([
      ['deposit scan', 0.5],
      ['deposit detection', 2000 / 2050],
      ['deposit detection', 200 / 260],
      ['deposit watched map', undefined],
      ['worker (built', 99 / 110],
    ]);
    expect(rows[0]?.notes).toMatch(/^≥ 0\.5 met; 300 of 300 payments detected met/);
    expect(rows[1]?.notes).toMatch(/^p99 ≤ poll \+ 1,000 met/);
    expect(rows[3]?.value).toBe('37.5 (393 B)');
    expect(rows[4]?.notes).toMatch(/^< 150 met/);
    const lines = formatTable(rows);
    expect(lines[2]).toMatch(/\| ratio 0\.50 \|$/);
    expect(lines[5]).toMatch(/\| ratio – +\|$/);
    expect(lines[6]).toMatch(/\| nothing to scan 99 \/ 35 +\| .*\| ratio 0\.90 \|$/);
  });

  it('says MISSED where a target is missed', () => {
    const rows = depositRows(figures({ scannerPerSecond: 80, p99: 3100, rssMB: 151 }));
    expect(rows[0]?.notes).toMatch(/^≥ 0\.5 MISSED/);
    expect(rows[1]?.notes).toMatch(/^p99 ≤ poll \+ 1,000 MISSED/);
    expect(rows[4]?.notes).toMatch(/^< 150 MISSED/);
  });

  it('takes the nearest-rank percentile', () => {
    const values = Array.from({ length: 200 }, (_, i) => 200 - i);
    expect(pct(values, 50)).toBe(100);
    expect(pct(values, 99)).toBe(198);
    expect(pct([], 50)).toBeNaN();
  });
});
