import { z } from 'zod';
import type { PolicyRules, SignPayload, Vault, VaultPolicy } from './model.js';

const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;
const dayList = z
  .string()
  .trim()
  .toUpperCase()
  .regex(
    /^(?:\*|ALL|(?:SUN|MON|TUE|WED|THU|FRI|SAT)(?:-(?:SUN|MON|TUE|WED|THU|FRI|SAT))?(?:,(?:SUN|MON|TUE|WED|THU|FRI|SAT)(?:-(?:SUN|MON|TUE|WED|THU|FRI|SAT))?)*)$/,
    'days: *, or day names (SUN … SAT) and ranges, e.g. MON-FRI or SAT,SUN',
  );
const clock = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'a time of day, HH:MM');
const amount = z.number().finite().min(0);

/**
 * The quorum policy's rules as the 1.0.2106 description names them (JoinPolicyVaultOperationDetails
 * `policies[].rules`): weekly time slots, amount ranges per asset, a white list of recipient
 * addresses, a derived white list (kept and shown, not enforced) and attributes.
 */
export const policyRulesSchema = z
  .object({
    weeklyTimeSlots: z
      .array(z.object({ days: dayList, timeStart: clock, timeEnd: clock }))
      .max(50)
      .default([]),
    amountRange: z
      .record(
        z.string().trim().min(1).max(40),
        z.object({ minimum: amount.default(0), maximum: amount }).refine((r) => r.minimum <= r.maximum, 'minimum above maximum'),
      )
      .default({}),
    whiteList: z.array(z.string().trim().min(1).max(200)).max(1_000).default([]),
    derivedWhiteList: z
      .array(
        z.object({
          chainCode: z.string().max(200),
          publicKey: z.string().max(400),
          level: z.number().int(),
          parentFingerprint: z.string().max(40),
          childNumber: z.number().int(),
        }),
      )
      .max(100)
      .default([]),
    attributes: z
      .array(z.object({ id: z.string().trim().min(1).max(100), op: z.enum(['EQ', 'NE', 'IN', 'NOT_IN']), value: z.string().max(2_000) }))
      .max(100)
      .default([]),
  })
  .strict();

export const vaultPolicySchema = z
  .object({
    timeZone: z
      .string()
      .max(64)
      .refine((tz) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: tz });
          return true;
        } catch {
          return false;
        }
      }, 'an IANA time zone, e.g. UTC or Europe/Paris')
      .default('UTC'),
    rules: policyRulesSchema.default(() => policyRulesSchema.parse({})),
  })
  .strict();

export const NO_RULES: PolicyRules = { weeklyTimeSlots: [], amountRange: {}, whiteList: [], derivedWhiteList: [], attributes: [] };
export const policyOf = (v: Pick<Vault, 'policy'>): VaultPolicy => v.policy ?? { timeZone: 'UTC', rules: NO_RULES };

/** Which rule refused a request, and why. */
export interface RuleRefusal {
  rule: 'weeklyTimeSlots' | 'amountRange' | 'whiteList' | 'attributes';
  details: string;
}

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
function inSlot(slot: PolicyRules['weeklyTimeSlots'][number], at: { day: number; minute: number }): boolean {
  const days = daysOf(slot.days);
  const start = minutes(slot.timeStart);
  const end = minutes(slot.timeEnd);
  if (start <= end) return days.has(at.day) && at.minute >= start && at.minute < end;
  return (days.has(at.day) && at.minute >= start) || (days.has((at.day + 6) % 7) && at.minute < end);
}

interface Transfer {
  address: string;
  asset: string;
  amount: number;
}

/**
 * What the request moves, from its providerData as the samples and this service's connector
 * write it: `recipients: [{address, asset, amount}]`, else `request: {recipientAddress, asset,
 * amount}` (the asset defaults to the request's ledger). Undefined when it does not say.
 */
function transfersOf(payload: SignPayload): { transfers?: Transfer[]; request: Record<string, unknown> } {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(payload.providerData);
    if (parsed && typeof parsed === 'object') data = parsed as Record<string, unknown>;
  } catch {
    return { request: {} };
  }
  const request = (data.request && typeof data.request === 'object' ? data.request : {}) as Record<string, unknown>;
  const fallbackAsset = String(request.asset ?? payload.ledger ?? '');
  const rows = Array.isArray(data.recipients)
    ? (data.recipients as Record<string, unknown>[])
    : request.recipientAddress !== undefined
      ? [{ address: request.recipientAddress, asset: request.asset, amount: request.amount }]
      : undefined;
  const transfers = rows?.map((r) => ({ address: String(r.address ?? ''), asset: String(r.asset ?? fallbackAsset).toUpperCase(), amount: Number(r.amount) }));
  return { transfers, request };
}

/**
 * Checks a sign request against the vault policy's rules, in the order the description lists
 * them; the first rule broken refuses it. A rule that needs what the request does not say
 * (amounts, recipients) refuses it too: a policy the service cannot check does not pass.
 */
export function ruleRefusal(policy: VaultPolicy, payload: SignPayload, now: number): RuleRefusal | undefined {
  const { rules, timeZone } = policy;
  if (rules.weeklyTimeSlots.length) {
    const at = localTime(now, timeZone);
    if (!rules.weeklyTimeSlots.some((s) => inSlot(s, at))) {
      const slots = rules.weeklyTimeSlots.map((s) => `${s.days} ${s.timeStart}-${s.timeEnd}`).join(', ');
      return { rule: 'weeklyTimeSlots', details: `outside the weekly time slots (${slots}, ${timeZone})` };
    }
  }
  const needsTransfers = Object.keys(rules.amountRange).length > 0 || rules.whiteList.length > 0;
  const { transfers, request } = transfersOf(payload);
  if (needsTransfers && !transfers?.length) {
    return {
      rule: Object.keys(rules.amountRange).length ? 'amountRange' : 'whiteList',
      details: 'the request does not say what it transfers (providerData has no recipients and no request)',
    };
  }
  for (const [asset, range] of Object.entries(rules.amountRange)) {
    const moved = (transfers ?? []).filter((t) => t.asset === asset.toUpperCase());
    if (moved.some((t) => !Number.isFinite(t.amount))) return { rule: 'amountRange', details: `an amount of ${asset} is not a number` };
    const total = moved.reduce((n, t) => n + t.amount, 0);
    if (moved.length && (total < range.minimum || total > range.maximum)) {
      return { rule: 'amountRange', details: `${total} ${asset} is outside ${range.minimum} … ${range.maximum}` };
    }
  }
  if (rules.whiteList.length) {
    const allowed = new Set(rules.whiteList.map((a) => a.toLowerCase()));
    const other = (transfers ?? []).find((t) => !allowed.has(t.address.toLowerCase()));
    if (other) return { rule: 'whiteList', details: `recipient ${other.address} is not on the white list` };
  }
  for (const a of rules.attributes) {
    const fields: Record<string, unknown> = { ...request, ledger: payload.ledger, ledgerHashAlgorithm: payload.ledgerHashAlgorithm };
    const actual = fields[a.id] === undefined ? '' : String(fields[a.id]);
    const list = a.value.split(',').map((v) => v.trim());
    const ok = a.op === 'EQ' ? actual === a.value : a.op === 'NE' ? actual !== a.value : a.op === 'IN' ? list.includes(actual) : !list.includes(actual);
    if (!ok) return { rule: 'attributes', details: `${a.id} '${actual}' fails ${a.op} '${a.value}'` };
  }
  return undefined;
}

/** The statusText of a sign operation a rule refused: names the rule. */
export const refusalText = (r: RuleRefusal) => `Declined by policy rule ${r.rule}: ${r.details}`;
