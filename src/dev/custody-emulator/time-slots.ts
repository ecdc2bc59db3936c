import type { VaultPolicy } from './model.js';

type Slot = VaultPolicy['rules']['weeklyTimeSlots'][number];

const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;
const WEEK_MINUTES = 7 * 24 * 60;
const MINUTE_MS = 60_000;

function daysOf(spec: string): Set<number> {
  if (spec === '*' || spec === 'ALL') return new Set([0, 1, 2, 3, 4, 5, 6]);
  const out = new Set<number>();
  for (const part of spec.split(',')) {
    const [from, to = from] = part.split('-').map((d) => DAYS.indexOf(d as (typeof DAYS)[number]));
    for (let d = from as number; ; d = (d + 1) % 7) {
      out.add(d);
      if (d === to) break;
    }
  }
  return out;
}

/** The day (0 = Sunday) and minute of the day at `now` in `timeZone`. */
function localTime(now: number, timeZone: string): { day: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(
    new Date(now),
  );
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { day: DAYS.indexOf(get('weekday').toUpperCase() as (typeof DAYS)[number]), minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** Inside a slot: from timeStart up to timeEnd; a slot whose end is before its start runs past midnight. */
function inSlot(slot: Slot, at: { day: number; minute: number }): boolean {
  const days = daysOf(slot.days);
  const start = minutes(slot.timeStart);
  const end = minutes(slot.timeEnd);
  if (start <= end) return days.has(at.day) && at.minute >= start && at.minute < end;
  return (days.has(at.day) && at.minute >= start) || (days.has((at.day + 6) % 7) && at.minute < end);
}

/** The policy's slots as the statusText names them. */
export const slotsText = (policy: VaultPolicy): string =>
  `${policy.rules.weeklyTimeSlots.map((s) => `${s.days} ${s.timeStart}-${s.timeEnd}`).join(', ')}, ${policy.timeZone}`;

/** Whether `now` is outside every weekly time slot (never, when the policy has none). */
export function outsideSlots(policy: VaultPolicy, now: number): boolean {
  const slots = policy.rules.weeklyTimeSlots;
  if (!slots.length) return false;
  const at = localTime(now, policy.timeZone);
  return !slots.some((s) => inSlot(s, at));
}

/** Minutes from `at` to the next start of a slot, on the local weekly clock; undefined when no slot can open (all empty). */
function minutesToNextStart(slots: Slot[], at: { day: number; minute: number }): number | undefined {
  let best: number | undefined;
  const here = at.day * 1440 + at.minute;
  for (const slot of slots) {
    const start = minutes(slot.timeStart);
    if (start === minutes(slot.timeEnd)) continue; // an empty slot never opens
    for (const day of daysOf(slot.days)) {
      const ahead = (day * 1440 + start - here + WEEK_MINUTES) % WEEK_MINUTES || WEEK_MINUTES;
      if (best === undefined || ahead < best) best = ahead;
    }
  }
  return best;
}

/**
 * When the next slot opens after `now` (ms since the epoch), or undefined when none ever does.
 * It steps from slot start to slot start on the local clock and checks each candidate in
 * the zone itself, so a daylight-saving change between here and there (a start that does not
 * exist that day, or comes an hour off) moves on to the next start rather than guessing.
 */
export function nextOpening(policy: VaultPolicy, now: number): number | undefined {
  const slots = policy.rules.weeklyTimeSlots;
  let t = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  // A week of starts is at most a few hundred; two weeks' worth bounds the walk.
  for (let step = 0; step < 2 * 7 * 50; step++) {
    const ahead = minutesToNextStart(slots, localTime(t, policy.timeZone));
    if (ahead === undefined) return undefined;
    t += ahead * MINUTE_MS;
    if (!outsideSlots(policy, t)) return t;
  }
  return undefined;
}
