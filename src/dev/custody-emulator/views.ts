import type { EmulatorContext, Revision } from './context.js';
import type { Account, ApprovalGroup, Operation, Participant, Vault, VaultOutline } from './model.js';
import { policyOf } from './policy.js';
import { notFound } from './problem.js';

/** Accounts and participants by id: the names every wire view needs. */
export interface Directory {
  accounts: Map<string, Account>;
  participants: Map<string, Participant>;
}

export async function loadDirectory(ctx: EmulatorContext): Promise<Directory> {
  const [accounts, participants] = await Promise.all([ctx.store.list<Account>('account'), ctx.store.list<Participant>('participant')]);
  return { accounts: new Map(accounts.map((a) => [a.id, a])), participants: new Map(participants.map((p) => [p.id, p])) };
}

/** Every vault an operation may name, by id: the live ones and what deleted ones left behind. */
export async function operationVaults(ctx: EmulatorContext): Promise<Map<string, VaultOutline>> {
  const [deleted, live] = await Promise.all([ctx.store.list<VaultOutline>('deleted-vault'), ctx.store.list<Vault>('vault')]);
  return new Map([...deleted, ...live].map((v) => [v.id, v]));
}

/** The vault an operation names: the live one, else what was kept of it when it was deleted. */
export async function operationVault(ctx: EmulatorContext, op: Operation): Promise<VaultOutline> {
  const vault = (await ctx.store.get<Vault>('vault', op.vaultID)) ?? (await ctx.store.get<VaultOutline>('deleted-vault', op.vaultID));
  if (!vault) throw notFound(`Vault ${op.vaultID} does not exist.`);
  return vault;
}

/** An operation's details as the status routes answer them; they need no live vault. */
export async function operationDetails(ctx: EmulatorContext, op: Operation, revision: Revision = '1.0.2106'): Promise<Record<string, unknown>> {
  const [vault, dir] = await Promise.all([operationVault(ctx, op), loadDirectory(ctx)]);
  return operationView(op, vault, dir, revision);
}

export function participantView(p: Participant, dir: Directory, revision: Revision, vaults?: Vault[]): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: p.id,
    accountID: p.accountID,
    name: p.name,
    email: p.email,
    status: p.status,
    isActive: p.status === 'ACTIVATED',
    accountName: dir.accounts.get(p.accountID)?.name ?? '',
    role: p.role,
  };
  if (revision === '1.0.1811' && vaults) {
    view.vaults = vaults.filter((v) => v.groups.some((g) => g.members.some((m) => m.id === p.id))).map((v) => ({ id: v.id, publicKey: vaultPublicKeyText(v) }));
  }
  return view;
}

/** The add-member answer's participant carries device fields too. */
export function participantDeviceView(p: Participant, dir: Directory, activeOperations: number): Record<string, unknown> {
  return {
    ...participantView(p, dir, '1.0.2106'),
    pushEnabled: false,
    offline: false,
    activeOperations,
    deviceType: p.deviceType,
    creationTime: p.createdAt,
    modificationTime: p.modificationTime,
  };
}

/** The single key's custody text, or '' while a BIP44 vault has none at its root. */
export function vaultPublicKeyText(v: Vault): string {
  return v.publicKey;
}

export function memberActive(vault: Pick<Vault, 'groups'>, memberId: string, dir: Directory): boolean {
  const member = vault.groups.flatMap((g) => g.members).find((m) => m.id === memberId);
  return !!member && member.joined && member.status === 'ACTIVE' && dir.participants.get(memberId)?.status === 'ACTIVATED';
}

export function groupsView(vault: VaultOutline, dir: Directory, op?: Operation): Record<string, unknown>[] {
  return vault.groups.map((g: ApprovalGroup) => ({
    name: g.name,
    requiredApprovals: g.requiredApprovals,
    order: g.order,
    deactivateAllowed: g.members.filter((m) => memberActive(vault, m.id, dir)).length > g.requiredApprovals,
    isOffline: false,
    members: g.members.map((m) => {
      const p = dir.participants.get(m.id);
      const account = p ? dir.accounts.get(p.accountID) : undefined;
      const answer = op?.answers[m.id];
      return {
        ...memberView(vault, m.id, dir),
        ...(op ? { status: answer?.status ?? 'STARTED', approvedAt: answer?.status === 'DONE' ? answer.at : '', isApproved: answer?.status === 'DONE' } : {}),
        globalStatus: p?.status ?? 'DEACTIVATED',
        isOffline: false,
        approvalGroupAccount: { id: account?.id ?? '', name: account?.name ?? '' },
      };
    }),
  }));
}

export function memberView(vault: Pick<Vault, 'groups'>, memberId: string, dir: Directory): Record<string, unknown> {
  const member = vault.groups.flatMap((g) => g.members).find((m) => m.id === memberId);
  const p = dir.participants.get(memberId);
  const account = p ? dir.accounts.get(p.accountID) : undefined;
  return {
    id: memberId,
    name: p?.name ?? '',
    status: member?.status === 'ACTIVE' ? (member.joined ? 'ACTIVE' : 'NOT_JOINED') : 'DEACTIVATED',
    approvalGroupAccount: { id: account?.id ?? '', name: account?.name ?? '' },
    label: p?.role ?? '',
    isGlobal: account?.isGlobal ?? false,
    isActive: memberActive(vault, memberId, dir),
  };
}

export function vaultView(v: Vault, dir: Directory, pendingOperations: number): Record<string, unknown> {
  return {
    id: v.id,
    name: v.name,
    description: v.description,
    accountID: v.accountID,
    status: v.status,
    statusText: v.status === 'INITIALIZED' ? 'Initialized' : v.status === 'NOT_INITIALIZED' ? 'Waiting for members to join' : 'Deactivated',
    kind: 'QUORUM',
    isActive: v.status === 'INITIALIZED',
    cryptoKind: v.cryptoKind,
    providerKind: v.providerKind,
    providerData: '',
    pendingOperations,
    hierarchy: v.hierarchy,
    groups: groupsView(v, dir),
    policyDetails: { id: v.policyId, name: 'Default policy' },
  };
}

const STATUS_TEXT: Record<Operation['status'], string> = {
  PENDING: 'Waiting for approvals',
  APPROVED: 'Approved',
  COMPLETED: 'Completed',
  DECLINED: 'Declined by a member',
  CANCELED: 'Canceled',
  FAILED: 'Failed',
  ERROR: 'Error',
};
export const statusText = (status: Operation['status']) => STATUS_TEXT[status];

/**
 * The kind an operation has on the wire in a revision. The request to join a vault is
 * `CREATE_VAULT` up to 1.0.1901 (the only kinds those revisions list: CREATE_VAULT,
 * ADD_MEMBER, SIGN), `JOIN_VAULT` on the paged `/casp` revision (what the ERC-20 sample looks
 * for) and `JOIN_POLICY_VAULT` in 1.0.2106.
 */
export function kindName(kind: Operation['kind'], revision: Revision): string {
  if (kind !== 'JOIN_POLICY_VAULT') return kind;
  return revision === '1.0.1811' ? 'CREATE_VAULT' : revision === '1.0.1905' ? 'JOIN_VAULT' : kind;
}

/** Kinds a revision does not have: vault updates and public-key calculations came with 1.0.2106. */
export const servedIn = (op: Operation, revision: Revision): boolean =>
  revision === '1.0.2106' || (op.kind !== 'UPDATE_VAULT' && op.kind !== 'CALCULATE_PUBLIC_KEY');

export function operationSummary(op: Operation, vault: VaultOutline | undefined, revision: Revision = '1.0.2106'): Record<string, unknown> {
  return {
    operationID: op.operationID,
    kind: kindName(op.kind, revision),
    status: op.status,
    statusText: op.statusText,
    createdAt: op.createdAt,
    vaultID: op.vaultID,
    description: op.description,
    isApproved: ['APPROVED', 'COMPLETED'].includes(op.status),
    accountID: op.accountID,
    vaultName: vault?.name ?? '',
    providerKind: vault?.providerKind ?? '',
  };
}

/**
 * A join request before 1.0.2106 is plain operation details: the vault's groups at the top,
 * each member approved once its device has joined (what the ERC-20 sample reads to say who is
 * still pending); no policies.
 */
function joinDetailsBefore2106(op: Operation, vault: VaultOutline, dir: Directory, revision: Revision): Record<string, unknown> {
  const groups = groupsView(vault, dir).map((g) => ({
    ...g,
    members: (g.members as Record<string, unknown>[]).map((m) => {
      const joined = vault.groups.some((vg) => vg.members.some((vm) => vm.id === m.id && vm.joined));
      return { ...m, status: joined ? 'DONE' : 'STARTED', isApproved: joined, approvedAt: joined ? (op.answers[m.id as string]?.at ?? '') : '' };
    }),
  }));
  return { ...operationSummary(op, vault, revision), groups, groupNameToJoin: op.member?.groupName ?? '' };
}

export function operationView(op: Operation, vault: VaultOutline, dir: Directory, revision: Revision = '1.0.2106'): Record<string, unknown> {
  if (op.kind === 'JOIN_POLICY_VAULT' && revision !== '1.0.2106') return joinDetailsBefore2106(op, vault, dir, revision);
  const summary = operationSummary(op, vault, revision);
  const base = { ...summary, groups: groupsView(vault, dir, op), policyDetails: { id: vault.policyId, name: 'Default policy' } };
  if (op.kind === 'SIGN' && op.sign) {
    const s = op.sign;
    return {
      ...base,
      publicKeys: s.publicKeys,
      dataToSign: s.dataToSign,
      signatures: s.signatures,
      v: s.v,
      providerData: s.providerData,
      details: typeof s.details === 'string' ? s.details : s.details === undefined ? '' : JSON.stringify(s.details),
      rawTransactions: s.rawTransactions,
      ...(s.ledgerHashAlgorithm ? { ledgerHashAlgorithm: s.ledgerHashAlgorithm } : {}),
      ...(s.callbackUrl ? { callbackUrl: s.callbackUrl } : {}),
    };
  }
  if (op.kind === 'ADD_MEMBER' && op.member) {
    const p = dir.participants.get(op.member.participantID);
    return { ...base, groupName: op.member.groupName, participantName: p?.name ?? '', participantID: op.member.participantID };
  }
  if (op.kind === 'JOIN_POLICY_VAULT' && op.member) {
    const { groups, policyDetails, ...rest } = base;
    return {
      ...rest,
      groupNameToJoin: op.member.groupName,
      policies: [
        {
          name: policyDetails.name,
          id: policyDetails.id,
          description: '',
          enabled: true,
          timeZone: policyOf(vault).timeZone,
          groups,
          rules: policyOf(vault).rules,
        },
      ],
    };
  }
  if (op.kind === 'UPDATE_VAULT' && op.update) return { ...base, update: op.update };
  if (op.kind === 'CALCULATE_PUBLIC_KEY') return { ...base, totsParams: op.calculated?.totsParams ?? [], publicKeys: op.calculated?.publicKeys ?? [] };
  return base;
}
