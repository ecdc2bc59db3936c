import { describe, expect, it } from 'vitest';
import type { VaultPolicy } from '../../src/dev/custody-emulator/model.js';
import { NO_RULES } from '../../src/dev/custody-emulator/policy.js';
import { nextOpening, outsideSlots } from '../../src/dev/custody-emulator/time-slots.js';

const policy = (timeZone: string, ...weeklyTimeSlots: VaultPolicy['rules']['weeklyTimeSlots']): VaultPolicy => ({
  timeZone,
  rules: { ...NO_RULES, weeklyTimeSlots },
});
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

describe('weekly time slots: when the next one opens', () => {
  const office = policy('Europe/Paris', { days: 'MON-FRI', timeStart: '09:00', timeEnd: '18:00' });

  it('the next working morning in the zone, over a weekend too', () => {
    // Wednesday 2026-11-25 20:00 UTC (21:00 in Paris): Thursday 09:00 Paris.
    expect(iso(nextOpening(office, Date.UTC(2026, 10, 25, 20, 0)))).toBe('2026-11-26T08:00:00.000Z');
    // Friday 18:00 Paris exactly: the slot has ended (its end is not in it); Monday 09:00.
    expect(outsideSlots(office, Date.UTC(2026, 10, 27, 17, 0))).toBe(true);
    expect(iso(nextOpening(office, Date.UTC(2026, 10, 27, 17, 0)))).toBe('2026-11-30T08:00:00.000Z');
    // 08:59:59 Paris on Monday: one second before.
    expect(iso(nextOpening(office, Date.UTC(2026, 10, 30, 7, 59, 59)))).toBe('2026-11-30T08:00:00.000Z');
    expect(outsideSlots(office, Date.UTC(2026, 10, 30, 8, 0))).toBe(false);
  });

  it('a slot past midnight, and the earliest of several', () => {
    const nights = policy('UTC', { days: 'SAT,SUN', timeStart: '22:00', timeEnd: '06:00' }, { days: 'WED', timeStart: '12:00', timeEnd: '13:00' });
    // Sunday 05:59 is inside Saturday night's slot; Monday 06:00 is after Sunday night's.
    expect(outsideSlots(nights, Date.UTC(2026, 10, 29, 5, 59))).toBe(false);
    expect(outsideSlots(nights, Date.UTC(2026, 10, 30, 6, 0))).toBe(true);
    expect(iso(nextOpening(nights, Date.UTC(2026, 10, 30, 6, 0)))).toBe('2026-12-02T12:00:00.000Z');
    expect(iso(nextOpening(nights, Date.UTC(2026, 11, 2, 13, 0)))).toBe('2026-12-05T22:00:00.000Z');
  });

  it('a start that the daylight-saving change skips opens the next day at that hour', () => {
    // New York springs forward on Sunday 2026-03-08 at 02:00: 02:30 does not exist that day.
    const early = policy('America/New_York', { days: '*', timeStart: '02:30', timeEnd: '03:00' });
    expect(iso(nextOpening(early, Date.UTC(2026, 2, 7, 17, 0)))).toBe('2026-03-09T06:30:00.000Z');
  });

  it('a slot to 24:00 lasts to the end of its day', () => {
    const saturday = policy('UTC', { days: 'SAT', timeStart: '00:00', timeEnd: '24:00' });
    expect(outsideSlots(saturday, Date.UTC(2026, 10, 28, 23, 59))).toBe(false);
    expect(outsideSlots(saturday, Date.UTC(2026, 10, 29, 0, 0))).toBe(true);
    expect(iso(nextOpening(saturday, Date.UTC(2026, 10, 27, 12, 0)))).toBe('2026-11-28T00:00:00.000Z');
  });

  it('no slot that can open: none (an empty slot never opens)', () => {
    expect(nextOpening(policy('UTC', { days: '*', timeStart: '09:00', timeEnd: '09:00' }), Date.UTC(2026, 10, 25))).toBeUndefined();
  });
});
