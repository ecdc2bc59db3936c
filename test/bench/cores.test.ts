import { describe, expect, it } from 'vitest';
import { coreMeter, coreSharesText } from '../../bench/cores.js';

describe('the bench: who kept the cores busy during a drain', () => {
  it('gives each process its CPU per withdrawal, the cores all of them kept busy, and what the others alone take', async () => {
    let at = 0;
    const cpu = { worker: 10, api: 5, bench: 2, redis: 1 };
    const meter = coreMeter({ worker: () => cpu.worker, api: () => cpu.api, bench: async () => cpu.bench, redis: () => cpu.redis }, 2, () => at);
    await meter.start();
    // 2 s of wall time; 2.0 s of worker CPU, 0.6 s API, 0.4 s bench, 0.2 s Redis over 1,000 withdrawals.
    at = 2000;
    Object.assign(cpu, { worker: 12, api: 5.6, bench: 2.4, redis: 1.2 });
    const shares = await meter.stop(1000, 'worker');
    expect(shares.perWithdrawalMs).toEqual({ worker: 2, api: 0.6, bench: 0.4, redis: 0.2 });
    // 3.2 s of CPU in 2 s of wall time: 1.6 cores busy.
    expect(shares.busy).toBe(1.6);
    expect(shares.cores).toBe(2);
    // Without the worker's 2 s: 1.2 s of CPU, 0.6 s on two cores.
    expect(shares.othersSeconds).toBe(0.6);
    expect(coreSharesText(shares, 'worker')).toBe(
      'cores busy 1.6 of 2 (CPU ms per withdrawal: worker 2, api 0.6, bench 0.4, redis 0.2); all but the worker: 0.6 s on 2 cores',
    );
  });

  it('leaves out a process it could not read (gone, or no /proc) instead of counting NaN', async () => {
    let at = 0;
    let worker = 1;
    const gone = () => {
      throw new Error("ENOENT: no such file or directory, open '/proc/4242/stat'");
    };
    const meter = coreMeter({ worker: () => worker, node: () => NaN, redis: gone }, 2, () => at);
    await meter.start();
    at = 1000;
    worker = 2;
    const shares = await meter.stop(100, 'worker');
    expect(shares.busy).toBe(1);
    expect(shares.othersSeconds).toBe(0);
    expect(coreSharesText(shares, 'worker')).toBe('cores busy 1 of 2 (CPU ms per withdrawal: worker 10); all but the worker: 0 s on 2 cores');
  });

  it('refuses to stop a meter that never started', async () => {
    await expect(coreMeter({}, 2).stop(1, 'worker')).rejects.toThrow(/before start/);
  });
});
