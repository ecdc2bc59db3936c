import type { ApprovalGroup, Operation, Vault } from './model.js';
import { memberActive, type Directory } from './views.js';

/**
 * The quorum rule of the spec: a member may leave (be deactivated) only while the active
 * members that remain in each of its groups can still give `requiredApprovals`.
 * Returns the first group the removal would break. A vault not yet initialized signs
 * nothing, so it has no quorum to protect.
 */
export function groupBrokenWithout(vault: Vault, memberId: string, dir: Directory): ApprovalGroup | undefined {
  if (vault.status !== 'INITIALIZED') return undefined;
  return vault.groups.find((g) => {
    if (!g.members.some((m) => m.id === memberId)) return false;
    const remaining = g.members.filter((m) => m.id !== memberId && memberActive(vault, m.id, dir)).length;
    return remaining < g.requiredApprovals;
  });
}

export type Tally = 'approved' | 'declined' | 'pending';

/**
 * Approval of one operation: every group needs `requiredApprovals` answers `DONE` from its
 * active members. A single decline declines the operation, as a member's "decline" on the
 * device rejects the request for everyone.
 */
export function tally(op: Operation, vault: Vault, dir: Directory): Tally {
  const answers = Object.values(op.answers);
  if (answers.some((a) => a.status === 'DECLINED')) return 'declined';
  const done = (g: ApprovalGroup) => g.members.filter((m) => op.answers[m.id]?.status === 'DONE' && memberActive(vault, m.id, dir)).length;
  return vault.groups.every((g) => done(g) >= g.requiredApprovals) ? 'approved' : 'pending';
}

/** Whether a member may answer an operation of this vault now. */
export function canAnswer(vault: Vault, memberId: string, dir: Directory): boolean {
  return memberActive(vault, memberId, dir);
}
