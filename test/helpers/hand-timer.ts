import type { Every } from '../../src/dev/block-timer.js';

/**
 * A block timer the test ticks by hand: each tick is the moment the node would mine a block.
 * `intervals` holds the period each running timer was started with.
 */
export function handTimer() {
  const ticks = new Map<() => Promise<unknown>, number>();
  const every: Every = (tick, ms) => {
    ticks.set(tick, ms);
    return () => void ticks.delete(tick);
  };
  return {
    every,
    tick: async () => void (await Promise.all([...ticks.keys()].map((t) => t()))),
    intervals: () => [...ticks.values()],
  };
}
