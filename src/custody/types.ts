import { z } from 'zod';

/**
 * Wire shapes of the custody management API as this service uses them (custody-facts.md).
 * Response schemas are loose on purpose: deployments add fields, and a field we do not
 * read must never make a healthy answer look broken.
 */

/** Body of `POST {mng}/vaults/{vaultId}/sign`. Index i of every array belongs to digest i. */
export interface SignRequest {
  description: string;
  /** Hex 32-byte digests, in payload order. */
  dataToSign: string[];
  /** The vault key id (DER SPKI hex for ECDSA) per digest. */
  publicKeys: string[];
  /** Hex preimage per digest, so approvers can see what they sign. */
  rawTransactions: string[];
  /** `DOUBLE_SHA256` (Bitcoin), `SHA3_256` (Keccak-256, Ethereum), `SHA256`. */
  ledgerHashAlgorithm: string;
  /** Upper case, e.g. `ETHTEST`. */
  ledger: string;
  /** JSON text handed back in the callback; a hint, never the source of truth. */
  providerData: string;
  details?: unknown;
  callbackUrl?: string;
}

export interface SignRequestResult {
  operationID: string;
}

export interface SignOperation {
  operationID: string;
  /** `PENDING`, `APPROVED`, `COMPLETED`, `DECLINED`, `CANCELED`, `FAILED`, `ERROR`; others pass through. */
  status: string;
  statusText?: string;
  isApproved: boolean;
  dataToSign: string[];
  publicKeys: string[];
  /** Empty until the quorum approved. */
  signatures: string[];
  v: number[];
}

export interface ComponentHealth {
  healthy: boolean;
  errorMessage?: string;
}

/** `GET {mng}/status` read from either revision's shape (see serviceStatusSchema). */
export interface ServiceStatus {
  version: string;
  /** Every part healthy, and the answer's own top-level `healthy` too where it carries one. */
  healthy: boolean;
  /** `keyservice` in 1.0.2106, `ukc` in 1.0.1901. */
  keyservice: ComponentHealth;
  db: ComponentHealth & { schemaVersion?: string };
  nativeCrypto: ComponentHealth;
}

/** Samples show both `operationID` and `id`; either names the operation. */
function withOperationId<T extends { operationID?: string; id?: string }>(value: T, ctx: z.RefinementCtx): string {
  const id = value.operationID ?? value.id;
  if (!id) {
    ctx.addIssue({ code: 'custom', message: 'neither operationID nor id is present', path: ['operationID'] });
    return z.NEVER;
  }
  return id;
}

const idFields = { operationID: z.string().min(1).optional(), id: z.string().min(1).optional() };

export const signRequestResultSchema = z.looseObject(idFields).transform((value, ctx): SignRequestResult => ({ operationID: withOperationId(value, ctx) }));

export const signOperationSchema = z
  .looseObject({
    ...idFields,
    status: z.string(),
    statusText: z.string().nullish(),
    isApproved: z.boolean().default(false),
    dataToSign: z.array(z.string()).default([]),
    publicKeys: z.array(z.string()).default([]),
    signatures: z.array(z.string()).nullish(),
    // v may come as numbers or numeric strings depending on the release.
    v: z.array(z.coerce.number().int()).nullish(),
  })
  .transform((value, ctx): SignOperation => ({
    operationID: withOperationId(value, ctx),
    status: value.status,
    ...(value.statusText ? { statusText: value.statusText } : {}),
    isApproved: value.isApproved,
    dataToSign: value.dataToSign,
    publicKeys: value.publicKeys,
    signatures: value.signatures ?? [],
    v: value.v ?? [],
  }));

const componentHealth = z.looseObject({ healthy: z.boolean(), errorMessage: z.string().optional() });

/**
 * Both published shapes: 1.0.2106 `{version, keyservice, db{schemaVersion}, nativeCrypto}`,
 * 1.0.1901 `{version, ukc, db, nativeCrypto}`. Neither requires a top-level `healthy`, so the
 * answer is healthy when every part is (and the top-level flag, when one is sent, agrees).
 */
export const serviceStatusSchema = z
  .looseObject({
    version: z.string(),
    healthy: z.boolean().optional(),
    keyservice: componentHealth.optional(),
    ukc: componentHealth.optional(),
    db: componentHealth.extend({ schemaVersion: z.string().optional() }),
    nativeCrypto: componentHealth,
  })
  .transform((s, ctx): ServiceStatus => {
    const keyservice = s.keyservice ?? s.ukc;
    if (!keyservice) {
      ctx.addIssue({ code: 'custom', message: 'neither keyservice nor ukc is present', path: ['keyservice'] });
      return z.NEVER;
    }
    const parts = { keyservice, db: s.db, nativeCrypto: s.nativeCrypto };
    const healthy = s.healthy !== false && Object.values(parts).every((p) => p.healthy);
    return { version: s.version, healthy, ...parts };
  });

/** Sign operations in these states will never be signed: the withdrawal ends FAILED. */
export const UNSIGNED_END_STATUSES = ['DECLINED', 'CANCELED', 'FAILED', 'ERROR'] as const;

export function endedUnsigned(status: string): boolean {
  return (UNSIGNED_END_STATUSES as readonly string[]).includes(status.toUpperCase());
}

/** BIP44 account backup (spec "Backup records"); `backupData` (encrypted) is not kept. */
export interface AccountBackup {
  publicKey: string;
  cpar: string;
  bipLevel: number;
  parentFingerprint: string | number;
  childNumber: number;
}

export const accountBackupSchema = z
  .looseObject({
    publicKey: z.string().min(1),
    cpar: z.string().min(1),
    bipLevel: z.coerce.number().int(),
    parentFingerprint: z.union([z.string(), z.number()]),
    childNumber: z.coerce.number().int(),
  })
  .transform((b): AccountBackup => ({
    publicKey: b.publicKey,
    cpar: b.cpar,
    bipLevel: b.bipLevel,
    parentFingerprint: b.parentFingerprint,
    childNumber: b.childNumber,
  }));

export const vaultPublicKeySchema = z.looseObject({ publicKey: z.string().min(1) });

/** The management layer's error body (`application/problem+json`). */
export const problemSchema = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  details: z.string().optional(),
  // Some components answer `detail` (RFC 7807 spelling) instead of `details`.
  detail: z.string().optional(),
  status: z.coerce.number().optional(),
});

/** Condenses a service status into the `/status` dependency shape. */
export function summariseStatus(status: ServiceStatus): ComponentHealth {
  if (status.healthy) return { healthy: true };
  const broken = (['keyservice', 'db', 'nativeCrypto'] as const)
    .filter((k) => !status[k].healthy)
    .map((k) => `${k}${status[k].errorMessage ? `: ${status[k].errorMessage}` : ''}`);
  return { healthy: false, errorMessage: broken.length ? broken.join('; ') : 'custody service reports unhealthy' };
}
