import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config/load-config.js';

export type Scope = 'read' | 'withdraw' | 'admin';
export const SCOPES: readonly Scope[] = ['read', 'withdraw', 'admin'];

export interface ApiKeyRecord {
  /** Name shown in logs instead of the key. */
  name: string;
  /** SHA-256 of the key, hex. The key itself is never kept. */
  sha256: string;
  scopes: Scope[];
  /** The vaults the key acts on (API_KEYS `vaults`); every vault when absent. */
  vaults?: string[];
  /** The ledgers whose vaults the key acts on (API_KEYS `ledgers`); every ledger when absent. */
  ledgers?: string[];
}

/** A key limited to some vaults or ledgers: it never sees what spans every vault. */
export function isLimited(record: Pick<ApiKeyRecord, 'vaults' | 'ledgers'>): boolean {
  return record.vaults !== undefined || record.ledgers !== undefined;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Finds the record for a presented key. Every record is compared, in constant time per
 * record, so timing tells nothing about which prefix matched.
 */
export function findApiKey(records: readonly ApiKeyRecord[], presented: string): ApiKeyRecord | undefined {
  const digest = Buffer.from(hashApiKey(presented), 'hex');
  let found: ApiKeyRecord | undefined;
  for (const record of records) {
    if (timingSafeEqual(digest, Buffer.from(record.sha256, 'hex')) && !found) found = record;
  }
  return found;
}

/** The configured API keys as the service keeps them: by name, hashed, with their scopes. */
export function apiKeyRecords(config: Pick<Config, 'apiKeys'>): ApiKeyRecord[] {
  return (config.apiKeys ?? []).map((k) => ({
    name: k.name,
    sha256: k.sha256 ?? hashApiKey(k.key as string),
    scopes: k.scopes,
    ...(k.vaults ? { vaults: k.vaults } : {}),
    ...(k.ledgers ? { ledgers: k.ledgers } : {}),
  }));
}
