import { z } from 'zod';

const hex = (what: string) => z.string().regex(/^(?:0x)?[0-9a-fA-F]+$/, `${what} must be hex`);

/** Public part of a BIP44 account backup record (spec "Backup records"), plus coin and account. */
export const bip44Schema = z.object({
  publicKey: hex('publicKey'),
  cpar: hex('cpar (chain code)').refine((v) => v.replace(/^0x/, '').length === 64, 'cpar (chain code) must be 32 bytes'),
  bipLevel: z.number().int().min(0).max(255),
  parentFingerprint: z.union([hex('parentFingerprint'), z.number().int().min(0)]),
  childNumber: z.number().int().min(0),
  coin: z.union([z.string(), z.number().int()]).transform(String),
  account: z.union([z.string(), z.number().int()]).transform(String),
});

export const vaultRegistrationSchema = z
  .object({
    vaultId: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'vaultId is 1-128 letters, digits, . _ : -'),
    ledgerId: z.string().min(1),
    publicKey: z.string().min(1).optional(),
    /** Address format for a single-key vault (e.g. `p2wpkh`); the ledger's default when absent. */
    addressFormat: z.string().optional(),
    bip44: bip44Schema.optional(),
    description: z.string().max(500).optional(),
  })
  .refine((v) => Boolean(v.publicKey) !== Boolean(v.bip44), 'give exactly one of publicKey (single-key vault) or bip44 (BIP44 vault)');

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
  bip44?: z.infer<typeof bip44Schema>;
  description?: string;
  createdAt: string;
}

export const vaultRecordSchema = z.object({
  vaultId: z.string(),
  ledgerId: z.string(),
  kind: z.enum(['single', 'bip44']),
  publicKey: z.string().optional(),
  addressFormat: z.string().optional(),
  address: z.string().optional(),
  bip44: bip44Schema.omit({ coin: true, account: true }).extend({ coin: z.string(), account: z.string() }).optional(),
  description: z.string().optional(),
  createdAt: z.string(),
});
