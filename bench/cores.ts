/**
 * Who kept the machine's cores busy during a drain: the CPU seconds of every process the drain
 * runs on (the worker, the API, the bench process with the custody side and the in-process
 * nodes, the node's own process where it has one, Redis), read at the drain's start and end.
 * A live drain shares the cores between the receiver, the custody side delivering callbacks and
 * the worker; the bare client's reference runs none of them, so these shares say how far any
 * worker could bring the drain on these cores.
 */

import { r2 } from './stats.js';

/** A process's (or a group's) CPU seconds so far; NaN, or a throw, when it cannot be read. */
export type CpuSource = () => number | Promise<number>;

export interface CoreShares {
  /** CPU per withdrawal of each source over the drain (ms). */
  perWithdrawalMs: Record<string, number>;
  /** All sources' CPU over the drain's wall time: how many cores they kept busy. */
  busy: number;
  /** The machine's cores. */
  cores: number;
  /**
   * The seconds the sources other than `without` kept every core busy: the shortest drain the
   * cores allow even if that one cost nothing, as long as the others' work stays the same.
   */
  othersSeconds: number;
}

export function coreMeter(sources: Record<string, CpuSource>, cores: number, now: () => number = () => performance.now()) {
  // A process gone (or no /proc to read) counts as unknown, not as a failed drain.
  const readOne = async (f: CpuSource) => {
    try {
      return await f();
    } catch {
      return NaN;
    }
  };
  const read = async () => Object.fromEntries(await Promise.all(Object.entries(sources).map(async ([k, f]) => [k, await readOne(f)] as const)));
  let start: { at: number; cpu: Record<string, number> } | undefined;
  return {
    async start(): Promise<void> {
      start = { cpu: await read(), at: now() };
    },
    /** The shares since `start`, over `withdrawals`; `without` names the source whose absence `othersSeconds` imagines. */
    async stop(withdrawals: number, without: string): Promise<CoreShares> {
      if (!start) throw new Error('coreMeter: stop before start');
      const seconds = (now() - start.at) / 1000;
      const end = await read();
      const used = Object.fromEntries(Object.keys(sources).map((k) => [k, (end[k] ?? NaN) - (start?.cpu[k] ?? NaN)]));
      const counted = Object.values(used).filter(Number.isFinite);
      const total = counted.reduce((a, s) => a + s, 0);
      const others = Object.entries(used)
        .filter(([k, s]) => k !== without && Number.isFinite(s))
        .reduce((a, [, s]) => a + s, 0);
      return {
        perWithdrawalMs: Object.fromEntries(Object.entries(used).map(([k, s]) => [k, r2((s * 1000) / withdrawals)])),
        busy: r2(total / seconds),
        cores,
        othersSeconds: r2(others / cores),
      };
    },
  };
}

/** `cores busy 1.9 of 2 (CPU ms per withdrawal: worker 2.1, api 0.9, …); all but the worker: 1.7 s on 2 cores` */
export function coreSharesText(c: CoreShares, without: string): string {
  const shares = Object.entries(c.perWithdrawalMs)
    .filter(([, ms]) => Number.isFinite(ms))
    .map(([k, ms]) => `${k} ${ms}`)
    .join(', ');
  return `cores busy ${c.busy} of ${c.cores} (CPU ms per withdrawal: ${shares}); all but the ${without}: ${c.othersSeconds} s on ${c.cores} cores`;
}
