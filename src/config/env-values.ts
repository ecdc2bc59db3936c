import { z } from 'zod';
import { configErrorMap } from './issue-words.js';
import { VAULT_ID_FORM, VAULT_ID_PATTERN } from '../vaults/vault-schema.js';

/**
 * The kinds of value the environment table (env-spec.ts) reads from its variables' text:
 * booleans, bounded whole numbers, JSON checked against a schema, ledger lists and API keys.
 * Each refuses what it cannot read with a message that says what it takes.
 */

export const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v), 'must be true or false')
  .transform((v) => ['true', '1', 'yes'].includes(v));

/** Digits only: `Number('')`, `Number('1e3')` and `Number('0x10')` would pass a numeric coercion. */
export const int = (min: number, max: number) =>
  z.string().transform((text, ctx): number => {
    const n = /^\d{1,16}$/.test(text.trim()) ? Number(text.trim()) : NaN;
    if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
    ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
    return z.NEVER;
  });

export const json = <T>(schema: z.ZodType<T>) =>
  z.string().transform((text, ctx): T => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `is not valid JSON (${(e as Error).message})` });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value, { error: configErrorMap });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return parsed.data;
  });

/** `none` → no ledger; else comma-separated ledger ids (which of them have a deposit source is checked once the adaptors exist). */
export const depositLedgerList = z.string().transform((text, ctx): string[] => {
  if (text.trim().toLowerCase() === 'none') return [];
  const ids = text.split(',').map((s) => s.trim());
  if (ids.every((id) => id.length > 0)) return [...new Set(ids)];
  ctx.addIssue({ code: 'custom', message: 'must be comma-separated ledger ids (`eth,btc`), or `none` for no deposit scanning' });
  return z.NEVER;
});

/** An API key as a client presents it: in `Authorization: Bearer <key>`, which carries no spaces. */
export const apiKeyText = z
  .string()
  .min(32, 'must be at least 32 characters: make one with `openssl rand -hex 24`, or give its `sha256` instead')
  .regex(/^\S+$/, 'must have no spaces (it is sent in an Authorization: Bearer header)');

export const apiKeySchema = z
  .strictObject({
    name: z.string().min(1),
    key: apiKeyText.optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits (the SHA-256 of the key)')
      .optional(),
    scopes: z.array(z.enum(['read', 'withdraw', 'admin'])).min(1),
    /** The vaults the key acts on; every vault when absent. */
    vaults: z.array(z.string().regex(VAULT_ID_PATTERN, VAULT_ID_FORM)).min(1, 'list at least one vault, or leave vaults out for every vault').optional(),
    /** The ledgers whose vaults the key acts on; every ledger when absent. */
    ledgers: z.array(z.string().min(1)).min(1, 'list at least one ledger, or leave ledgers out for every ledger').optional(),
  })
  .refine((k) => Boolean(k.key) !== Boolean(k.sha256), 'must have exactly one of key or sha256');
