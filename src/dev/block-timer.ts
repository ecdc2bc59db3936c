/**
 * The block timer of a development node whose blocks the service mines itself: passed in, so a
 * test can play its ticks by hand (each one the moment a block would be mined) instead of
 * waiting for the clock.
 */

/** Runs `tick` every `ms` until the returned stop is called. */
export type Every = (tick: () => Promise<unknown>, ms: number) => () => void;

/** The real timer: `tick` every `ms` of the clock. */
export const everyInterval: Every = (tick, ms) => {
  const timer = setInterval(() => void tick(), ms);
  return () => clearInterval(timer);
};
