import { readFileSync } from 'node:fs';
import type { LedgerFamily } from '../ledger/adaptor.js';
import type { LedgerConfig } from '../ledger/registry.js';
import { ConfigError } from '../platform/config-error.js';
import { clusterPrefixProblem } from '../platform/redis.js';
import { ENV, type EnvEntry, type EnvValues } from './env-spec.js';
import { configErrorMap, describeIssues, shapeKeys, unknownKeysMessage } from './issue-words.js';

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

/** The Redis key prefix the sandbox profile uses unless REDIS_PREFIX is set: its data never mixes with production's. */
export const SANDBOX_PREFIX = 'byow-sandbox';

/**
 * Parses every variable; a set but invalid one is reported once, named, and (unless secret)
 * with the value it had. `invalid` collects the names of those, so that checks of what is
 * required do not report them a second time.
 */
function readEnv(env: Env, problems: string[], secrets: string[], invalid: Set<string>): EnvValues {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(ENV) as [string, EnvEntry][]) {
    // Empty counts as unset (compose passes `${VAR:-}` as ''): the default applies.
    const raw = env[entry.env] || entry.default;
    if (raw === undefined) continue;
    if (entry.sensitive && env[entry.env]) secrets.push(raw);
    const parsed = entry.schema.safeParse(raw, { error: configErrorMap });
    if (parsed.success) {
      out[key] = parsed.data;
      continue;
    }
    invalid.add(entry.env);
    const got = entry.sensitive ? '' : `, got '${raw}'`;
    for (const line of describeIssues(entry.env, parsed.error.issues)) problems.push(`${line}${got}`);
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
    const family = typeof familyName === 'string' ? families.find((f) => f.family === familyName) : families.find((f) => f.knownLedgers.includes(ledgerId));
    if (!family) {
      problems.push(
        typeof familyName === 'string'
          ? `LEDGERS.${ledgerId}.family: unknown family '${familyName}'. Valid values: ${familyNames.join(', ')}`
          : `LEDGERS.${ledgerId}: not a built-in ledger id; add "family" (one of ${familyNames.join(', ')})`,
      );
      continue;
    }
    secrets.push(...sensitiveValues(options, family.sensitiveOptions ?? []));
    const parsed = family.optionsSchema.safeParse(options, {
      // At the top level `family` is an option too; the schema never sees it.
      error: (issue) =>
        issue.code === 'unrecognized_keys' && !issue.path?.length
          ? unknownKeysMessage(issue.keys, [...shapeKeys(issue.inst), 'family'])
          : configErrorMap(issue),
    });
    if (!parsed.success) {
      problems.push(...describeIssues(`LEDGERS.${ledgerId}`, parsed.error.issues));
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
  const invalid = new Set<string>();
  const values = readEnv(env, problems, secrets, invalid);
  for (const k of values.apiKeys ?? []) if (k.key) secrets.push(k.key);
  let rawLedgers = values.ledgers;
  if (values.ledgersFile) {
    if (env.LEDGERS) problems.push('LEDGERS and LEDGERS_FILE are both set; keep one');
    try {
      const text = readFileSync(values.ledgersFile, 'utf8');
      secrets.push(text);
      const parsed = ENV.ledgers.schema.safeParse(text, { error: configErrorMap });
      if (parsed.success) rawLedgers = parsed.data;
      else {
        invalid.add('LEDGERS_FILE');
        problems.push(...describeIssues(`LEDGERS_FILE (${values.ledgersFile})`, parsed.error.issues));
      }
    } catch (e) {
      invalid.add('LEDGERS_FILE');
      problems.push(`LEDGERS_FILE: cannot read ${values.ledgersFile}: ${(e as Error).message}`);
    }
  }
  // Ledgers that were given but are invalid still mean "not the sandbox": the sandbox would
  // otherwise start in their place and hide the mistake.
  const ledgersGiven = Boolean(env.LEDGERS || env.LEDGERS_FILE);
  const sandboxProfile = values.sandbox ?? !ledgersGiven;
  const required = (name: string, message: string, present: unknown) => {
    if (!sandboxProfile && !present && !invalid.has(name)) problems.push(message);
  };
  if (!sandboxProfile && !ledgersGiven) problems.push('LEDGERS (or LEDGERS_FILE) is required when SANDBOX is false');
  // Production images leave out the development dependencies, pino-pretty among them.
  if (!sandboxProfile && values.logFormat === 'pretty')
    problems.push('LOG_FORMAT=pretty is for the sandbox profile only; outside it logs are JSON (LOG_FORMAT=json or unset)');
  if (!sandboxProfile && rawLedgers && Object.keys(rawLedgers).length === 0) {
    problems.push(`${env.LEDGERS_FILE ? 'LEDGERS_FILE' : 'LEDGERS'} names no ledger: configure at least one, or leave LEDGERS unset for the sandbox profile`);
  }
  required('API_KEYS', 'API_KEYS is required outside the sandbox profile', values.apiKeys);
  required('CUSTODY_URL', 'CUSTODY_URL is required outside the sandbox profile', values.custodyUrl);
  const clusterProblem = values.redisUrl ? clusterPrefixProblem(values.redisUrl, values.keyPrefix) : undefined;
  if (clusterProblem) problems.push(clusterProblem);
  if (Boolean(values.custodyUser) !== Boolean(values.custodyPassword)) problems.push('CUSTODY_USER and CUSTODY_PASSWORD go together; set both or neither');
  if (values.custodyUser && values.custodyApiKey)
    problems.push('CUSTODY_API_KEY and CUSTODY_USER are both set; keep one way to authenticate to the custody service');
  if (values.httpHeadersTimeoutMs > values.httpRequestTimeoutMs)
    problems.push('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS: the headers are part of the request');
  const ledgerConfigs = rawLedgers ? resolveLedgers(rawLedgers, families, problems, secrets) : [];
  if (problems.length) throw new ConfigError(problems);
  const keyPrefix = env.REDIS_PREFIX || !sandboxProfile ? values.keyPrefix : SANDBOX_PREFIX;
  return { ...values, keyPrefix, sandboxProfile, ledgerConfigs, families, secrets, version };
}
