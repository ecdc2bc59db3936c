/** The bench's percentile: the nearest-rank value (p99 of 200 is the 198th), NaN for none. */
export const pct = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
};

/** Rounded to one decimal, as the bench reports a figure. */
export const r1 = (n: number): number => Math.round(n * 10) / 10;

/** Rounded to two decimals, as the bench reports a ratio or seconds. */
export const r2 = (n: number): number => Math.round(n * 100) / 100;
