/**
 * Direct control of an in-memory custody emulator from the process that runs it, for tests,
 * the bench and the fault suite: a vault with a quorum of bots in one call, faults set
 * without HTTP (approver faults included), and operations read back synchronously with each
 * callback delivery. What goes over HTTP is the emulator's, unchanged.
 */
import { randomUUID } from 'node:crypto';
import type { CustodyEmulator } from './emulator.js';
import type { DeliveryOutcome } from './context.js';
import { approverFaultsSchema, emulatorFaultsSchema, type ApproverFaults, type EmulatorFaults, type FaultTable } from './faults.js';
import type { Account, CryptoKind, Operation, OperationKind, OperationStatus, Participant, Vault } from './model.js';
import { badRequest, describeIssues, notFound } from './problem.js';
import type { MemoryStore } from './store.js';
import { addAccount, buildVault } from './vaults.js';

export interface QuorumOptions {
  /** Bots in the vault's one approval group. */
  approvers: number;
  /** Approvals needed before signing. */
  required: number;
  /** Time before the first approval and between one approval and the next. */
  approvalDelayMs: number;
}

export interface DirectVault {
  vaultId: string;
  name: string;
  scheme: CryptoKind;
  hierarchy: 'NONE' | 'BIP44';
  ledger?: string;
  /** As custody reports it: DER SPKI hex uppercase (ECDSA) or raw hex (EdDSA); '' for BIP44 vaults. */
  publicKey: string;
}

export interface DirectVaultOptions {
  name?: string;
  /** Only remembered, for the caller's own bookkeeping. */
  ledger?: string;
  hierarchy?: 'NONE' | 'BIP44';
  /** BIP44: accounts to create per coin type, e.g. `{ 60: 2 }` for accounts 0 and 1 of coin 60. */
  accounts?: Record<number, number>;
}

/** The emulator's faults and the approver faults in one object, as `setFaults` takes them. */
export const directFaultsSchema = emulatorFaultsSchema.extend(approverFaultsSchema.shape);
export type DirectFaults = EmulatorFaults & ApproverFaults;
const APPROVER_FAULTS = Object.keys(approverFaultsSchema.shape);

/** A sign operation flattened, as tests read it. */
export interface DirectOperation {
  operationID: string;
  kind: OperationKind;
  status: OperationStatus;
  createdAt: string;
  vaultID: string;
  description: string;
  isApproved: boolean;
  ledger?: string;
  providerData: string;
  dataToSign: string[];
  publicKeys: string[];
  signatures: string[];
  v: number[];
  callbackUrl?: string;
  /** Names of the bots that approved, in order. */
  approvals: string[];
  /** One entry per delivery (the first, then each resend), once it finished. */
  deliveries: DeliveryOutcome[];
}

export interface DirectControl {
  /** A vault whose bots have joined: ready to sign. */
  createVault(scheme?: CryptoKind, opts?: DirectVaultOptions): DirectVault;
  vaults(): DirectVault[];
  /** Replaces the faults of one vault, or the global ones when `vaultId` is absent. */
  setFaults(faults: DirectFaults, vaultId?: string): void;
  /** Sign operations, oldest first. */
  operations(): DirectOperation[];
  operation(id: string): DirectOperation | undefined;
  /** Resolves once no approval or callback is in flight. */
  settled(): Promise<void>;
}

/** Sets up the bots' account and the bots (active, as after their activation) and returns the control. */
export function createDirectControl(emulator: CustodyEmulator, store: MemoryStore, quorum: QuorumOptions): DirectControl {
  const { ctx } = emulator;
  if (!(quorum.required >= 1 && quorum.required <= quorum.approvers)) {
    throw new Error(`quorum.required must be between 1 and approvers (${quorum.approvers}), got ${quorum.required}`);
  }
  const deliveries = new Map<string, DeliveryOutcome[]>();
  const ledgers = new Map<string, string>();
  ctx.onDelivery = (operationID, outcome) => {
    deliveries.set(operationID, [...(deliveries.get(operationID) ?? []), outcome]);
  };
  // Records are written with the memory store's synchronous effect: `put` stores at once.
  const put = (kind: Parameters<MemoryStore['put']>[0], id: string, value: unknown) => void store.put(kind, id, value);

  const account: Account = { id: randomUUID(), name: 'direct', isGlobal: false, createdAt: ctx.iso() };
  put('account', account.id, account);
  const bots: Participant[] = Array.from({ length: quorum.approvers }, (_, i) => ({
    id: randomUUID(),
    accountID: account.id,
    name: `bot-${i + 1}`,
    email: `bot-${i + 1}@custody-emulator.invalid`,
    role: 'bot',
    status: 'ACTIVATED',
    deviceType: 'BOT',
    createdAt: ctx.iso(),
    modificationTime: ctx.iso(),
  }));
  bots.forEach((b) => put('participant', b.id, b));
  const botName = new Map(bots.map((b) => [b.id, b.name]));

  const info = (v: Vault): DirectVault => ({
    vaultId: v.id,
    name: v.name,
    scheme: v.cryptoKind,
    hierarchy: v.hierarchy === 'BIP44' ? 'BIP44' : 'NONE',
    ...(ledgers.has(v.id) ? { ledger: ledgers.get(v.id) } : {}),
    publicKey: v.publicKey,
  });

  const flatten = (op: Operation): DirectOperation => ({
    operationID: op.operationID,
    kind: op.kind,
    status: op.status,
    createdAt: op.createdAt,
    vaultID: op.vaultID,
    description: op.description,
    isApproved: op.status === 'COMPLETED' || op.status === 'APPROVED',
    ...(op.sign?.ledger ? { ledger: op.sign.ledger } : {}),
    providerData: op.sign?.providerData ?? '',
    dataToSign: op.sign?.dataToSign ?? [],
    publicKeys: op.sign?.publicKeys ?? [],
    signatures: op.sign?.signatures ?? [],
    v: op.sign?.v ?? [],
    ...(op.sign?.callbackUrl ? { callbackUrl: op.sign.callbackUrl } : {}),
    approvals: Object.entries(op.answers)
      .filter(([, a]) => a.status === 'DONE')
      .sort(([, a], [, b]) => a.at.localeCompare(b.at))
      .map(([id]) => botName.get(id) ?? id),
    deliveries: [...(deliveries.get(op.operationID) ?? [])],
  });

  return {
    createVault(scheme = 'ECDSA', o = {}) {
      const hierarchy = o.hierarchy ?? 'NONE';
      if (hierarchy === 'BIP44' && scheme !== 'ECDSA') throw badRequest('BIP44 vaults are ECDSA vaults', 'invalid-arguments');
      const id = randomUUID();
      const vault = buildVault(
        {
          name: o.name ?? `vault-${id.slice(0, 8)}`,
          description: '',
          groups: [{ name: 'quorum', requiredApprovals: quorum.required, members: bots.map((b) => ({ id: b.id })) }],
          cryptoKind: scheme,
          providerKind: '',
          hierarchy,
        },
        account.id,
        ctx.iso(),
      );
      vault.status = 'INITIALIZED';
      vault.groups.forEach((g) => g.members.forEach((m) => (m.joined = true)));
      for (const [coin, count] of Object.entries(o.accounts ?? {})) {
        for (let i = 0; i < count; i++) addAccount(vault, Number(coin), `Account ${i}`);
      }
      put('vault', vault.id, vault);
      if (o.ledger) ledgers.set(vault.id, o.ledger);
      ctx.logger.info({ vaultId: vault.id, scheme }, 'vault created');
      return info(vault);
    },
    vaults: () => store.peekAll<Vault>('vault').map(info),
    setFaults(input, vaultId) {
      const parsed = directFaultsSchema.safeParse(input ?? {});
      if (!parsed.success) throw badRequest(describeIssues(parsed.error), 'invalid-faults');
      if (vaultId !== undefined && !store.peek('vault', vaultId)) throw notFound(`Vault ${vaultId} does not exist.`);
      const approver: ApproverFaults = {};
      const service: EmulatorFaults = {};
      for (const [key, value] of Object.entries(parsed.data)) Object.assign(APPROVER_FAULTS.includes(key) ? approver : service, { [key]: value });
      const table = store.peek<FaultTable>('meta', 'faults') ?? { global: {}, vaults: {} };
      if (vaultId === undefined) {
        table.global = service;
        ctx.approverFaults.global = approver;
      } else {
        table.vaults[vaultId] = service;
        ctx.approverFaults.vaults.set(vaultId, approver);
      }
      put('meta', 'faults', table);
    },
    operations: () =>
      store
        .peekAll<Operation>('operation')
        .filter((o) => o.kind === 'SIGN')
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
        .map(flatten),
    operation(id) {
      const op = store.peek<Operation>('operation', id);
      return op?.kind === 'SIGN' ? flatten(op) : undefined;
    },
    settled: () => emulator.settled(),
  };
}
