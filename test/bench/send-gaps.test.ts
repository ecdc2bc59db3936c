import { describe, expect, it } from 'vitest';
import { gapsBetween } from '../../bench/drain-kit.js';

describe('the bench: answer → next send on a serial path', () => {
  it('measures from each answer to the next request, in the order the requests left', () => {
    const spans = [
      { start: 10, end: 14 },
      { start: 0, end: 5 },
      { start: 6, end: 9 },
      { start: 17, end: 20 },
    ];
    // Gaps 1 (5 → 6), 1 (9 → 10), 3 (14 → 17).
    expect(gapsBetween(spans)).toEqual({ p50: 1, p90: 3, totalSeconds: 0.01 });
  });

  it('reports nothing where two requests overlap (sends in parallel), or for a single one', () => {
    expect(
      gapsBetween([
        { start: 0, end: 5 },
        { start: 4, end: 8 },
      ]),
    ).toBeUndefined();
    expect(gapsBetween([{ start: 0, end: 5 }])).toBeUndefined();
    expect(gapsBetween([])).toBeUndefined();
  });

  it('takes a next request read a few microseconds before the answer as sent right after it', () => {
    expect(
      gapsBetween([
        { start: 0, end: 5 },
        { start: 4.98, end: 8 },
      ]),
    ).toEqual({ p50: 0, p90: 0, totalSeconds: 0 });
  });
});
