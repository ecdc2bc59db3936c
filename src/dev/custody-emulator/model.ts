/** Records the emulator keeps in Redis (store.ts). Wire views are built from them in views.ts. */

export const ROLES = ['Super_User', 'Security_Officer', 'Trader'] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  name: string;
  /** scrypt of the password with `salt`, hex. */
  passwordHash: string;
  salt: string;
  role: Role;
  enabled: boolean;
  mustChangePassword: boolean;
}

export interface ApiKeyRecord {
  clientId: string;
  role: Role;
  scope: string;
  tokenHash: string;
  expiresAt: number;
}

export interface Account {
  id: string;
  name: string;
  isGlobal: boolean;
  createdAt: string;
}

export type ParticipantStatus = 'NOT_ACTIVATED' | 'ACTIVATED' | 'DEACTIVATED';

export interface Participant {
  id: string;
  accountID: string;
  name: string;
  email: string;
  role: string;
  status: ParticipantStatus;
  /** Set while the device or bot has not activated yet. */
  activationCode?: string;
  deviceType: 'BOT' | 'MOBILE';
  createdAt: string;
  modificationTime: string;
}

export interface VaultMember {
  id: string;
  /** The member's device joined the vault (its key share exists). */
  joined: boolean;
  status: 'ACTIVE' | 'DEACTIVATED';
}

export interface ApprovalGroup {
  name: string;
  requiredApprovals: number;
  order: number;
  members: VaultMember[];
}

export type CryptoKind = 'ECDSA' | 'EDDSA';
export type Hierarchy = 'NONE' | 'BIP32' | 'BIP44';
export type VaultStatus = 'NOT_INITIALIZED' | 'INITIALIZED' | 'DEACTIVATED';

export interface Bip44Account {
  index: number;
  name: string;
  /** Next unused address index per chain. */
  next: { external: number; change: number };
}

/** A quorum policy's rules (1.0.2106 `policies[].rules`). */
export interface PolicyRules {
  weeklyTimeSlots: { days: string; timeStart: string; timeEnd: string }[];
  amountRange: Record<string, { minimum: number; maximum: number }>;
  whiteList: string[];
  derivedWhiteList: { chainCode: string; publicKey: string; level: number; parentFingerprint: string; childNumber: number }[];
  attributes: { id: string; op: 'EQ' | 'NE' | 'IN' | 'NOT_IN'; value: string }[];
}

export interface VaultPolicy {
  timeZone: string;
  rules: PolicyRules;
}

export interface Vault {
  id: string;
  accountID: string;
  name: string;
  description: string;
  cryptoKind: CryptoKind;
  hierarchy: Hierarchy;
  providerKind: string;
  status: VaultStatus;
  policyId: string;
  /** The policy's rules; none when absent. */
  policy?: VaultPolicy;
  groups: ApprovalGroup[];
  /**
   * PLAIN private material, hex: a secp256k1 scalar or an ed25519 seed (single key), or a
   * 64-byte BIP32 seed. This is what makes the emulator a development tool only.
   */
  secret: string;
  /** Single-key vault: its key as custody reports it (DER SPKI hex / raw EdDSA hex); '' for BIP44. */
  publicKey: string;
  /** Keys this vault signs with: normalised public key hex → derivation path ('m' for a single key). */
  keys: Record<string, string>;
  /** BIP44: coin type → accounts. */
  coins: Record<string, Bip44Account[]>;
  derivations: { derivationPath: string; publicKey: string }[];
  createdAt: string;
}

/**
 * What an operation's view shows of its vault. A deleted vault leaves this much behind (no
 * key material), so that its operations can still be read.
 */
export type VaultOutline = Pick<Vault, 'id' | 'accountID' | 'name' | 'providerKind' | 'policyId' | 'policy' | 'groups'>;

export const OPERATION_STATUSES = ['PENDING', 'APPROVED', 'COMPLETED', 'DECLINED', 'CANCELED', 'FAILED', 'ERROR'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];
export type OperationKind = 'SIGN' | 'ADD_MEMBER' | 'JOIN_POLICY_VAULT' | 'UPDATE_VAULT' | 'CALCULATE_PUBLIC_KEY';

export interface SignPayload {
  dataToSign: string[];
  publicKeys: string[];
  rawTransactions: string[];
  ledgerHashAlgorithm?: string;
  ledger?: string;
  providerData: string;
  details?: unknown;
  callbackUrl?: string;
  signatures: string[];
  v: number[];
}

export interface Operation {
  operationID: string;
  kind: OperationKind;
  status: OperationStatus;
  statusText: string;
  createdAt: string;
  vaultID: string;
  accountID: string;
  description: string;
  /** Member id → its answer; members without one are `STARTED`. */
  answers: Record<string, { status: 'DONE' | 'DECLINED'; at: string }>;
  sign?: SignPayload;
  /**
   * SIGN outside every weekly time slot: PENDING, the approvers not asked, until the next
   * slot opens (`until`, ISO; absent when none ever does). Cleared when it is released.
   */
  held?: { rule: 'weeklyTimeSlots'; until?: string };
  /** ADD_MEMBER: who joins which group; JOIN_POLICY_VAULT: the member who must join. */
  member?: { participantID: string; groupName: string };
  /** UPDATE_VAULT: the fields applied on approval. */
  update?: { name: string; description: string };
  /** CALCULATE_PUBLIC_KEY: the keys computed when the vault's members had all joined. */
  calculated?: { publicKeys: string[]; totsParams: { index: number; numberOfFragments: number }[] };
  /** Callback deliveries: POSTs answered 2xx, POSTs that never were, and dropped sends. */
  deliveries: { delivered: number; failed: number; dropped: number };
}
