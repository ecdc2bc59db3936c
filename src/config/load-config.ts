import { readFileSync } from 'node:fs';
import type { LedgerFamily } from '../ledger/adaptor.js';
import { ENV, type EnvEntry, type EnvValues } from './env-spec.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LedgerConfig {
  ledgerId: string;
  family: LedgerFamily;
  options: unknown;
}

export interface Config extends EnvValues {
  /** True when the service runs against local dev nodes it starts itself. */
  sandboxProfile: boolean;
  ledgerConfigs: LedgerConfig[];
  /** Every family this build knows, configured or not: their built-in ids answer pure address operations. */
  families: readonly LedgerFamily[];
  /** Values that must never reach a log line. */
  secrets: string[];
  version: string;
}

type Env = Record<string, string | undefined>;

function readEnv(env: Env, problems: string[], secrets: string[]): EnvValues {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(ENV) as [string, EnvEntry][]) {
    const raw = env[entry.env] ?? entry.default;
    if (raw === undefined || raw === '') continue;
    if (entry.sensitive && env[entry.env]) secrets.push(raw);
    const parsed = entry.schema.safeParse(raw);
    if (parsed.success) out[key] = parsed.data;
    else for (const issue of parsed.error.issues) problems.push(`${entry.env}: ${issue.message}`);
  }
  return out as EnvValues;
}

/** Collects string leaves of the options named sensitive, so the log censor knows them. */
function sensitiveValues(options: Record<string, unknown>, names: readonly string[]): string[] {
  return names.map((n) => options[n]).filter((v): v is string => typeof v === 'string' && v.length > 0);
}

/** Resolves each configured ledger to its family and validated options, reporting every problem. */
export function resolveLedgers(
  raw: Record<string, Record<string, unknown>>,
  families: readonly LedgerFamily[],
  problems: string[],
  secrets: string[],
): LedgerConfig[] {
  const out: LedgerConfig[] = [];
  const familyNames = families.map((f) => f.family);
  for (const [ledgerId, entry] of Object.entries(raw)) {
    const { family: familyName, ...options } = entry;
    const family =
      typeof familyName === 'string'
        ? families.find((f) => f.family === familyName)
        : families.find((f) => f.knownLedgers.includes(ledgerId));
    if (!family) {
      problems.push(
        typeof familyName === 'string'
          ? `LEDGERS.${ledgerId}.family: unknown family '${familyName}'. Valid values: ${familyNames.join(', ')}`
          : `LEDGERS.${ledgerId}: not a built-in ledger id; add "family" (one of ${familyNames.join(', ')})`,
      );
      continue;
    }
    secrets.push(...sensitiveValues(options, family.sensitiveOptions ?? []));
    const parsed = family.optionsSchema.safeParse(options);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`LEDGERS.${ledgerId}.${issue.path.join('.')}: ${issue.message}`);
      continue;
    }
    out.push({ ledgerId, family, options: parsed.data });
  }
  return out;
}

/**
 * Reads and validates the whole configuration, reporting every problem at once.
 * With no ledgers configured (and SANDBOX not false) it selects the sandbox profile,
 * whose ledgers the sandbox bootstrap adds once its local nodes run.
 */
export function loadConfig(env: Env, families: readonly LedgerFamily[], version: string): Config {
  const problems: string[] = [];
  const secrets: string[] = [];
  const values = readEnv(env, problems, secrets);
  for (const k of values.apiKeys ?? []) if (k.key) secrets.push(k.key);
  let rawLedgers = values.ledgers;
  if (values.ledgersFile) {
    if (rawLedgers) problems.push('LEDGERS and LEDGERS_FILE are both set; keep one');
    try {
      const text = readFileSync(values.ledgersFile, 'utf8');
      secrets.push(text);
      const parsed = ENV.ledgers.schema.safeParse(text);
      if (parsed.success) rawLedgers = parsed.data;
      else for (const issue of parsed.error.issues) problems.push(`LEDGERS_FILE ${values.ledgersFile}: ${issue.message}`);
    } catch (e) {
      problems.push(`LEDGERS_FILE: cannot read ${values.ledgersFile}: ${(e as Error).message}`);
    }
  }
  const sandboxProfile = values.sandbox ?? rawLedgers === undefined;
  if (!sandboxProfile && !rawLedgers) problems.push('LEDGERS (or LEDGERS_FILE) is required when SANDBOX is false');
  if (!sandboxProfile && !values.apiKeys) problems.push('API_KEYS is required outside the sandbox profile');
  if (!sandboxProfile && !values.custodyUrl) problems.push('CUSTODY_URL is required outside the sandbox profile');
  if (!sandboxProfile && !values.callbackSecret && !values.callbackAllowedIps) {
    problems.push('CALLBACK_SECRET (HMAC) or CALLBACK_ALLOWED_IPS is required outside the sandbox profile: callbacks must be authenticated');
  }
  const ledgerConfigs = rawLedgers ? resolveLedgers(rawLedgers, families, problems, secrets) : [];
  if (problems.length) throw new ConfigError(problems);
  return { ...values, sandboxProfile, ledgerConfigs, families, secrets, version };
}
