import { z } from 'zod';
import { derivedEntryUsable, derivedWhiteListMatcher } from './derived-white-list.js';
import type { Operation, PolicyRules, SignPayload, Vault, VaultPolicy } from './model.js';
import { nextOpening, outsideSlots, slotsText } from './time-slots.js';

const dayList = z
  .string()
  .trim()
  .toUpperCase()
  .regex(
    /^(?:\*|ALL|(?:SUN|MON|TUE|WED|THU|FRI|SAT)(?:-(?:SUN|MON|TUE|WED|THU|FRI|SAT))?(?:,(?:SUN|MON|TUE|WED|THU|FRI|SAT)(?:-(?:SUN|MON|TUE|WED|THU|FRI|SAT))?)*)$/,
    'days: *, or day names (SUN … SAT) and ranges, e.g. MON-FRI or SAT,SUN',
  );
const clock = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'a time of day, HH:MM');
/** A slot may end at 24:00, the end of its day (00:00 to 24:00 is the whole day). */
const endClock = z.string().regex(/^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/, 'a time of day, HH:MM, or 24:00');
const amount = z.number().finite().min(0);

/**
 * The quorum policy's rules as the 1.0.2106 description names them (JoinPolicyVaultOperationDetails
 * `policies[].rules`): weekly time slots, amount ranges per asset, a white list of recipient
 * addresses, a derived white list (extended public keys whose derived addresses may receive) and
 * attributes.
 */
export const policyRulesSchema = z
  .object({
    weeklyTimeSlots: z
      .array(
        z.object({ days: dayList, timeStart: clock, timeEnd: endClock }).refine((s) => s.timeStart !== s.timeEnd, {
          message: 'timeStart equals timeEnd: an empty slot (a whole day is 00:00 to 24:00)',
        }),
      )
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
        z
          .object({
            chainCode: z.string().max(200),
            publicKey: z.string().max(400),
            level: z.number().int().min(0).max(255),
            parentFingerprint: z.string().max(40),
            childNumber: z.number().int().min(0).max(0xffffffff),
          })
          .refine(derivedEntryUsable, 'an extended secp256k1 public key: publicKey (hex, compressed, uncompressed or DER) and chainCode (32 bytes hex)'),
      )
      // Each entry costs about 40 ms of derivation per sign request that needs it.
      .max(20)
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
  rule: 'amountRange' | 'whiteList' | 'derivedWhiteList' | 'attributes';
  details: string;
}

/** A request outside every weekly time slot: held until `until` (ms since the epoch; undefined when no slot ever opens). */
export interface RuleHold {
  rule: 'weeklyTimeSlots';
  details: string;
  until?: number;
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
  // A row that is not an object moves an unknown amount to no address: every rule that reads it refuses it.
  const transfers = rows
    ?.map((r) => (r && typeof r === 'object' ? r : {}) as Record<string, unknown>)
    .map((r) => ({ address: String(r.address ?? ''), asset: String(r.asset ?? fallbackAsset).toUpperCase(), amount: Number(r.amount) }));
  return { transfers, request };
}

/** The recipient lists: on the white list or the derived white list, whichever the policy has (either will do when it has both). */
function recipientRefusal(rules: PolicyRules, transfers: Transfer[]): RuleRefusal | undefined {
  const plain = new Set(rules.whiteList.map((a) => a.toLowerCase()));
  const derived = rules.derivedWhiteList;
  const onDerived = derivedWhiteListMatcher(derived);
  const other = transfers.find((t) => !plain.has(t.address.toLowerCase()) && !(derived.length && onDerived(t.address)));
  if (!other) return undefined;
  if (!derived.length) return { rule: 'whiteList', details: `recipient ${other.address} is not on the white list` };
  const lists = rules.whiteList.length ? 'on neither the white list nor the derived white list' : 'not derived from a key of the derived white list';
  return { rule: 'derivedWhiteList', details: `recipient ${other.address} is ${lists}` };
}

/**
 * Checks a sign request against the rules that refuse: amount ranges, the white lists and
 * attributes, in the order the description lists them; the first rule broken refuses it. A
 * rule that needs what the request does not say (amounts, recipients) refuses it too: a
 * policy the service cannot check does not pass.
 */
export function ruleRefusal(policy: VaultPolicy, payload: SignPayload): RuleRefusal | undefined {
  const { rules } = policy;
  const recipientRule = rules.derivedWhiteList.length ? 'derivedWhiteList' : 'whiteList';
  const needsRecipients = rules.whiteList.length > 0 || rules.derivedWhiteList.length > 0;
  const needsTransfers = Object.keys(rules.amountRange).length > 0 || needsRecipients;
  const { transfers, request } = transfersOf(payload);
  if (needsTransfers && !transfers?.length) {
    return {
      rule: Object.keys(rules.amountRange).length ? 'amountRange' : recipientRule,
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
  const recipients = needsRecipients ? recipientRefusal(rules, transfers ?? []) : undefined;
  if (recipients) return recipients;
  for (const a of rules.attributes) {
    const fields: Record<string, unknown> = { ...request, ledger: payload.ledger, ledgerHashAlgorithm: payload.ledgerHashAlgorithm };
    const actual = fields[a.id] === undefined ? '' : String(fields[a.id]);
    const list = a.value.split(',').map((v) => v.trim());
    const ok = a.op === 'EQ' ? actual === a.value : a.op === 'NE' ? actual !== a.value : a.op === 'IN' ? list.includes(actual) : !list.includes(actual);
    if (!ok) return { rule: 'attributes', details: `${a.id} '${actual}' fails ${a.op} '${a.value}'` };
  }
  return undefined;
}

/** Whether the weekly time slots hold a request at `now`, and until when. */
export function slotHold(policy: VaultPolicy, now: number): RuleHold | undefined {
  if (!outsideSlots(policy, now)) return undefined;
  const until = nextOpening(policy, now);
  const opens = until === undefined ? 'no slot ever opens' : `the next slot opens ${new Date(until).toISOString()}`;
  return { rule: 'weeklyTimeSlots', details: `outside the weekly time slots (${slotsText(policy)}); ${opens}`, until };
}

/**
 * What the vault policy's rules make of a sign request at `now`: refused (a rule that refuses
 * is checked first: waiting for a slot would not change its answer), held until a slot opens,
 * or neither (undefined: on to the approvers).
 */
export function ruleOutcome(policy: VaultPolicy, payload: SignPayload, now: number): { refused: RuleRefusal } | { held: RuleHold } | undefined {
  const refused = ruleRefusal(policy, payload);
  if (refused) return { refused };
  const held = slotHold(policy, now);
  return held ? { held } : undefined;
}

/** The statusText of a sign operation a rule refused: names the rule. */
export const refusalText = (r: RuleRefusal) => `Declined by policy rule ${r.rule}: ${r.details}`;

/** The statusText of a held sign operation: PENDING, the approvers not asked yet, the rule named. */
export const holdText = (h: RuleHold) => `Held by policy rule ${h.rule}: ${h.details}`;

/** What a held operation keeps of its hold: the rule and the opening, ISO. */
export const heldRecord = (h: RuleHold): NonNullable<Operation['held']> => ({
  rule: h.rule,
  until: h.until === undefined ? undefined : new Date(h.until).toISOString(),
});
