import { randomUUID } from 'node:crypto';
import { parsePublicKey } from '../../ledger/public-key.js';
import type { EmulatorContext } from './context.js';
import { applyContentFaults, faultsFor } from './faults.js';
import { hexBytes, keyIndex, signerAt } from './keys.js';
import type { Operation, OperationKind, Vault } from './model.js';
import { badRequest, conflict, forbidden, notFound } from './problem.js';
import { canAnswer, tally } from './quorum.js';
import { loadDirectory, statusText, type Directory } from './views.js';

export async function vaultOr404(ctx: EmulatorContext, id: string): Promise<Vault> {
  const vault = await ctx.store.get<Vault>('vault', id);
  if (!vault) throw notFound(`Vault ${id} does not exist.`);
  return vault;
}

export async function operationOr404(ctx: EmulatorContext, id: string, kind?: OperationKind): Promise<Operation> {
  const op = await ctx.store.get<Operation>('operation', id);
  if (!op || (kind && op.kind !== kind)) throw notFound(`${kind ? `${kind} operation` : 'Operation'} ${id} does not exist.`);
  return op;
}

/** A new PENDING operation, stored; call inside `exclusive`, then `hooks.operationCreated`. */
export async function newOperation(
  ctx: EmulatorContext,
  vault: Vault,
  kind: OperationKind,
  description: string,
  extra: Pick<Operation, 'sign' | 'member' | 'update' | 'calculated'> = {},
): Promise<Operation> {
  const op: Operation = {
    operationID: randomUUID(),
    kind,
    status: 'PENDING',
    statusText: statusText('PENDING'),
    createdAt: ctx.iso(),
    vaultID: vault.id,
    accountID: vault.accountID,
    description,
    answers: {},
    deliveries: { delivered: 0, failed: 0, dropped: 0 },
    ...extra,
  };
  await ctx.store.put('operation', op.operationID, op);
  return op;
}

const finish = (op: Operation, status: Operation['status']): Operation => ({ ...op, held: undefined, status, statusText: statusText(status) });

/** Signs every entry with the vault key the request named for it. */
async function sign(ctx: EmulatorContext, op: Operation, vault: Vault): Promise<Operation> {
  const s = op.sign;
  if (!s) return finish(op, 'ERROR');
  const faults = await faultsFor(ctx, vault.id);
  if (faults.endStatus) return finish(op, faults.endStatus);
  const scheme = vault.cryptoKind === 'EDDSA' ? 'ed25519' : 'secp256k1';
  const signed = s.dataToSign.map((digest, i) => {
    const path = vault.keys[keyIndex(parsePublicKey(s.publicKeys[i] as string, scheme))];
    if (path === undefined) throw new Error(`key of entry ${i} is not a key of vault ${vault.id}`);
    return signerAt(vault, path).sign(hexBytes(digest));
  });
  const shaped = applyContentFaults(vault.cryptoKind, { signatures: signed.map((x) => x.signature), v: signed.map((x) => x.v) }, faults);
  return { ...finish(op, 'COMPLETED'), sign: { ...s, ...shaped } };
}

/** What an approved operation does; runs inside `exclusive`. */
async function conclude(ctx: EmulatorContext, op: Operation, vault: Vault): Promise<Operation> {
  switch (op.kind) {
    case 'SIGN':
      try {
        return await sign(ctx, op, vault);
      } catch (err) {
        ctx.logger.error({ err, operationID: op.operationID }, 'signing failed');
        return finish(op, 'FAILED');
      }
    case 'ADD_MEMBER': {
      const m = op.member;
      const group = vault.groups.find((g) => g.name === m?.groupName);
      if (!m || !group) return finish(op, 'FAILED');
      group.members.push({ id: m.participantID, joined: false, status: 'ACTIVE' });
      await ctx.store.put('vault', vault.id, vault);
      const join = await newOperation(ctx, vault, 'JOIN_POLICY_VAULT', `Join vault ${vault.name}`, { member: m });
      ctx.hooks.operationCreated(join);
      return finish(op, 'COMPLETED');
    }
    case 'UPDATE_VAULT':
      if (op.update) await ctx.store.put('vault', vault.id, { ...vault, ...op.update });
      return finish(op, 'COMPLETED');
    case 'JOIN_POLICY_VAULT':
    case 'CALCULATE_PUBLIC_KEY':
      return finish(op, 'COMPLETED');
  }
}

/**
 * A member's answer from its device or bot. Approval by every group's quorum concludes the
 * operation (signs, adds the member, applies the update); one decline declines it.
 */
export async function answer(ctx: EmulatorContext, operationID: string, memberId: string, decision: 'approve' | 'decline'): Promise<Operation> {
  const done = await ctx.store.exclusive(async () => {
    const op = await operationOr404(ctx, operationID);
    if (op.kind === 'JOIN_POLICY_VAULT') throw badRequest('A join request is answered by joining the vault.', 'wrong-operation-kind');
    if (op.kind === 'CALCULATE_PUBLIC_KEY') throw badRequest('A public-key calculation completes when every member has joined.', 'wrong-operation-kind');
    const vault = await vaultOr404(ctx, op.vaultID);
    const dir: Directory = await loadDirectory(ctx);
    if (!vault.groups.some((g) => g.members.some((m) => m.id === memberId))) throw notFound(`Participant ${memberId} is not a member of vault ${vault.id}.`);
    if (!canAnswer(vault, memberId, dir)) throw forbidden(`Participant ${memberId} is not an active, joined member of vault ${vault.id}.`, 'member-not-active');
    if (op.status !== 'PENDING') throw conflict(`Operation ${op.operationID} is ${op.status}; only PENDING operations take answers.`, 'operation-not-pending');
    if (op.held) {
      const until = op.held.until ? ` until ${op.held.until}` : '';
      throw conflict(
        `Operation ${op.operationID} is held by policy rule ${op.held.rule}${until}; its approvers are asked once it is released.`,
        'operation-held',
      );
    }
    if (op.answers[memberId]) throw conflict(`Participant ${memberId} already answered ${op.answers[memberId]?.status}.`, 'already-answered');
    let next: Operation = { ...op, answers: { ...op.answers, [memberId]: { status: decision === 'approve' ? 'DONE' : 'DECLINED', at: ctx.iso() } } };
    const outcome = tally(next, vault, dir);
    if (outcome === 'declined') next = finish(next, 'DECLINED');
    if (outcome === 'approved') next = await conclude(ctx, finish(next, 'APPROVED'), vault);
    await ctx.store.put('operation', next.operationID, next);
    ctx.logger.info({ operationID: next.operationID, memberId, decision, status: next.status }, 'member answered');
    return next;
  });
  if (done.status === 'COMPLETED') ctx.hooks.operationCompleted(done);
  else if (done.status !== 'PENDING') ctx.hooks.operationEnded(done);
  return done;
}

/**
 * Withdraws a participant's answers from the operations still waiting for a quorum, when its
 * device is re-credentialed (reactivation): what a lost or replaced device approved no longer
 * counts, and the new device answers afresh. Call inside `exclusive`; returns the operations changed.
 */
export async function withdrawPendingAnswers(ctx: EmulatorContext, participantId: string): Promise<Operation[]> {
  const changed: Operation[] = [];
  for (const op of await ctx.store.list<Operation>('operation')) {
    if (op.status !== 'PENDING' || !op.answers[participantId]) continue;
    const { [participantId]: _withdrawn, ...answers } = op.answers;
    const next: Operation = { ...op, answers };
    await ctx.store.put('operation', next.operationID, next);
    changed.push(next);
  }
  return changed;
}

export async function cancel(ctx: EmulatorContext, operationID: string): Promise<Operation> {
  const next = await ctx.store.exclusive(async () => {
    const op = await operationOr404(ctx, operationID);
    if (op.status !== 'PENDING' && op.status !== 'APPROVED')
      throw conflict(`Operation ${op.operationID} is ${op.status} and cannot be canceled.`, 'cannot-cancel');
    // A hold canceled says so: the integrator sees why the request never reached its approvers.
    const next = op.held ? { ...finish(op, 'CANCELED'), statusText: `Canceled while held by policy rule ${op.held.rule}` } : finish(op, 'CANCELED');
    await ctx.store.put('operation', op.operationID, next);
    return next;
  });
  ctx.hooks.operationEnded(next);
  return next;
}

/** Ends a pending operation FAILED or ERROR without signing, as a key-service failure would (the approver fault `end`). */
export async function endUnsigned(ctx: EmulatorContext, operationID: string, status: 'FAILED' | 'ERROR'): Promise<Operation> {
  const next = await ctx.store.exclusive(async () => {
    const op = await operationOr404(ctx, operationID);
    if (op.status !== 'PENDING') return undefined;
    const next = finish(op, status);
    await ctx.store.put('operation', op.operationID, next);
    return next;
  });
  if (!next) return operationOr404(ctx, operationID);
  ctx.hooks.operationEnded(next);
  return next;
}
