import { z } from 'zod';

/**
 * What a vault id may look like: custody vault ids are UUIDs; the emulator and the tests use
 * short names (`v1`, `vault-a`). It becomes a path segment of custody URLs, so it begins with a
 * letter or digit: `.` and `..` (which walk up a URL) and anything with `/` are refused.
 */
export const VAULT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const VAULT_ID_FORM = 'vaultId is 1-128 letters, digits, . _ : - beginning with a letter or digit (custody vault ids are UUIDs)';
export const vaultIdSchema = z.string().regex(VAULT_ID_PATTERN, VAULT_ID_FORM);

const hex = (what: string) => z.string().regex(/^(?:0x)?[0-9a-fA-F]+$/, `${what} must be hex`);

/**
 * A BIP44 coin type or account index. Digits only: the pair is stored joined as `coin/account`
 * (the record's accounts, the address index key), so a '/' in either would let two accounts alias.
 */
const index = (what: string) => z.union([z.string().regex(/^\d{1,9}$/, `${what} is a non-negative integer`), z.number().int().min(0)]).transform(String);

/** Public part of a BIP44 account backup record (spec "Backup records"), plus coin and account. */
export const bip44Schema = z.object({
  publicKey: hex('publicKey'),
  cpar: hex('cpar (chain code)').refine((v) => v.replace(/^0x/, '').length === 64, 'cpar (chain code) must be 32 bytes'),
  bipLevel: z.number().int().min(0).max(255),
  parentFingerprint: z.union([hex('parentFingerprint'), z.number().int().min(0)]),
  childNumber: z.number().int().min(0),
  coin: index('coin'),
  account: index('account'),
});

/**
 * A registration gives the key itself (`publicKey`, or `bip44` with the account backup's
 * public part), or only the vault id: then the key is read from the custody service, the
 * single key, or with `coin` and `account` that BIP44 account's backup.
 */
export const vaultRegistrationSchema = z
  .object({
    vaultId: vaultIdSchema,
    ledgerId: z.string().min(1),
    publicKey: z.string().min(1).optional(),
    /** Address format for a single-key vault (e.g. `p2wpkh`); the ledger's default when absent. */
    addressFormat: z.string().optional(),
    bip44: bip44Schema.optional(),
    /** BIP44 vault registered by id: the coin type and account index whose backup to read. */
    coin: index('coin').optional(),
    account: index('account').optional(),
    description: z.string().max(500).optional(),
  })
  .refine(
    (v) => !(v.publicKey && v.bip44),
    'give one of publicKey (single-key vault) or bip44 (BIP44 vault), or neither to read the key from the custody service',
  )
  .refine(
    (v) => (v.coin === undefined && v.account === undefined) || (!v.publicKey && !v.bip44),
    'coin and account go with a registration by vault id only (no publicKey, no bip44)',
  )
  .refine((v) => (v.coin === undefined) === (v.account === undefined), 'give coin and account together (a BIP44 account of the vault)');

export type VaultRegistration = z.infer<typeof vaultRegistrationSchema>;

export interface VaultRecord {
  vaultId: string;
  ledgerId: string;
  kind: 'single' | 'bip44';
  /** Single-key vault: the key as the custody service reported it (its key id). */
  publicKey?: string;
  addressFormat?: string;
  /** Single-key vault: its address. */
  address?: string;
  /** BIP44 vault: the account withdrawals use (the first one registered). */
  bip44?: Bip44Account;
  /** BIP44 vault: every registered account, the first one included (filled in when read). */
  accounts?: Bip44Account[];
  description?: string;
  createdAt: string;
}

export type Bip44Account = z.infer<typeof bip44Schema>;

const bip44Output = bip44Schema.omit({ coin: true, account: true }).extend({ coin: z.string(), account: z.string() });

export const vaultRecordSchema = z.object({
  vaultId: z.string(),
  ledgerId: z.string(),
  kind: z.enum(['single', 'bip44']),
  publicKey: z.string().optional(),
  addressFormat: z.string().optional(),
  address: z.string().optional(),
  bip44: bip44Output.optional(),
  accounts: z.array(bip44Output).optional(),
  description: z.string().optional(),
  createdAt: z.string(),
});
