import { z } from 'zod';
import { sendCallback } from './callback.js';
import type { EmulatorContext, Hooks } from './context.js';
import { answer, cancel, endUnsigned, operationOr404, vaultOr404 } from './engine.js';
import { approverFaultsFor } from './faults.js';
import { joinVault } from './members.js';
import type { Operation, Participant } from './model.js';
import { ProblemError } from './problem.js';
import { loadDirectory, memberActive } from './views.js';

/**
 * The automatic approver policy: stands in for participants' phones and bots so a sandbox
 * runs hands-free. Members named in `decliners` decline first; then members approve one
 * after another, `delayMs` apart: just enough of each group for its quorum, or all of them.
 */
export const approverPolicySchema = z.strictObject({
  /** New (and reactivated) participants activate at once, as a bot with its code would. */
  autoActivate: z.boolean().default(false),
  /** Members join a vault as soon as they are asked to. */
  autoJoin: z.boolean().default(false),
  approve: z.enum(['none', 'quorum', 'all']).default('none'),
  /** Participant ids or names that may approve; absent: every member. */
  approvers: z.array(z.string().min(1).max(200)).max(100).optional(),
  /** Participant ids or names that decline every operation they are asked about. */
  decliners: z.array(z.string().min(1).max(200)).max(100).default([]),
  delayMs: z.number().int().min(0).max(3_600_000).default(200),
});
export type ApproverPolicy = z.infer<typeof approverPolicySchema>;
export type ApproverPolicyInput = z.input<typeof approverPolicySchema>;

export async function approverPolicy(ctx: EmulatorContext): Promise<ApproverPolicy> {
  return approverPolicySchema.parse((await ctx.store.get<ApproverPolicy>('meta', 'approver-policy')) ?? {});
}

const named = (list: string[], p: Participant | undefined) => !!p && (list.includes(p.id) || list.includes(p.name));

/** What the policy's members do about one operation, in order. */
async function plan(ctx: EmulatorContext, op: Operation, policy: ApproverPolicy): Promise<{ memberId: string; decision: 'approve' | 'decline' }[]> {
  const vault = await vaultOr404(ctx, op.vaultID);
  const dir = await loadDirectory(ctx);
  const open = (id: string) => !op.answers[id] && memberActive(vault, id, dir);
  const steps: { memberId: string; decision: 'approve' | 'decline' }[] = [];
  const members = vault.groups.flatMap((g) => g.members.map((m) => m.id));
  for (const id of members) if (open(id) && named(policy.decliners, dir.participants.get(id))) steps.push({ memberId: id, decision: 'decline' });
  if (policy.approve === 'none') return steps;
  const chosen = new Set<string>();
  for (const g of vault.groups) {
    const eligible = g.members
      .map((m) => m.id)
      .filter(
        (id) => open(id) && !named(policy.decliners, dir.participants.get(id)) && (!policy.approvers || named(policy.approvers, dir.participants.get(id))),
      );
    const already = g.members.filter((m) => op.answers[m.id]?.status === 'DONE').length;
    const take = policy.approve === 'all' ? eligible : eligible.slice(0, Math.max(0, g.requiredApprovals - already));
    take.forEach((id) => chosen.add(id));
  }
  for (const id of chosen) steps.push({ memberId: id, decision: 'approve' });
  return steps;
}

export function createHooks(ctx: EmulatorContext): Hooks {
  const quiet = (what: string) => (err: unknown) => {
    if (err instanceof ProblemError) ctx.logger.debug({ what, details: err.details }, 'automatic step skipped');
    else ctx.logger.error({ err, what }, 'automatic step failed');
  };
  const act = async (operationID: string, steps: { memberId: string; decision: 'approve' | 'decline' }[], delayMs: number): Promise<void> => {
    const [step, ...rest] = steps;
    if (!step) return;
    const op = await operationOr404(ctx, operationID);
    if (op.status !== 'PENDING' || op.held) return;
    // Approver faults are read at each step, as a member would decide when its turn comes.
    const faults = approverFaultsFor(ctx, op.vaultID);
    if (faults.holdApprovals) return;
    if (faults.end === 'DECLINED') return void (await answer(ctx, operationID, step.memberId, 'decline').catch(quiet('answer')));
    if (faults.end === 'CANCELED') return void (await cancel(ctx, operationID).catch(quiet('cancel')));
    if (faults.end) return void (await endUnsigned(ctx, operationID, faults.end));
    await answer(ctx, operationID, step.memberId, step.decision).catch(quiet('answer'));
    if (rest.length) ctx.background.later(delayMs, () => act(operationID, rest, delayMs));
  };
  return {
    async participantCreated(p) {
      if (!(await approverPolicy(ctx)).autoActivate) return;
      await ctx.store.exclusive(async () => {
        const current = await ctx.store.get<Participant>('participant', p.id);
        if (current?.status !== 'NOT_ACTIVATED') return;
        await ctx.store.put('participant', p.id, { ...current, status: 'ACTIVATED', activationCode: undefined, modificationTime: ctx.iso() });
      });
    },
    operationCreated(op) {
      ctx.background.later(0, async () => {
        const policy = await approverPolicy(ctx);
        if (op.kind === 'JOIN_POLICY_VAULT') {
          if (policy.autoJoin && op.member)
            ctx.background.later(policy.delayMs, () => joinVault(ctx, op.member?.participantID as string, op.vaultID).catch(quiet('join')));
          return;
        }
        const current = await operationOr404(ctx, op.operationID);
        // A held request asks nobody yet: its release calls this hook again.
        if (current.status !== 'PENDING' || current.held) return;
        const steps = await plan(ctx, current, policy);
        if (steps.length) ctx.background.later(policy.delayMs, () => act(op.operationID, steps, policy.delayMs));
      });
    },
    operationCompleted(op) {
      ctx.background.track(vaultOr404(ctx, op.vaultID).then((vault) => sendCallback(ctx, op, vault)));
    },
    operationEnded(op) {
      if (op.kind !== 'SIGN' || !approverFaultsFor(ctx, op.vaultID).notifyEnd) return;
      ctx.background.track(vaultOr404(ctx, op.vaultID).then((vault) => sendCallback(ctx, op, vault)));
    },
  };
}

/** After a restart: pending operations get their automatic answers again. */
export async function resumeAutomation(ctx: EmulatorContext): Promise<number> {
  const pending = (await ctx.store.list<Operation>('operation')).filter((o) => o.status === 'PENDING');
  pending.forEach((op) => ctx.hooks.operationCreated(op));
  return pending.length;
}
