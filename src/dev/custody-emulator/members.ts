import { Router } from 'express';
import { z } from 'zod';
import type { EmulatorContext } from './context.js';
import { toCustodyKeyId } from '../../ledger/public-key.js';
import { newOperation, vaultOr404 } from './engine.js';
import { accountPath, bip32Root } from './keys.js';
import { queryFlag } from './listing.js';
import type { Operation, Participant, Vault } from './model.js';
import { badRequest, conflict, forbidden, notAcceptable, notFound, parse } from './problem.js';
import { participantOr404 } from './participants.js';
import { groupBrokenWithout } from './quorum.js';
import { loadDirectory, memberView, operationSummary, participantDeviceView, statusText } from './views.js';

const statusBody = z.object({ status: z.enum(['DEACTIVATED', 'ACTIVE', 'ACTIVATED']) });

/**
 * A member's device joins the vault (its key share is created). When the last member has
 * joined, the vault is INITIALIZED. Used by the emulator-only device routes and the
 * automatic approver policy.
 */
export async function joinVault(ctx: EmulatorContext, participantId: string, vaultId: string): Promise<Vault> {
  return ctx.store.exclusive(async () => {
    const p = await participantOr404(ctx, participantId);
    const vault = await vaultOr404(ctx, vaultId);
    const member = vault.groups.flatMap((g) => g.members).find((m) => m.id === p.id);
    if (!member) throw notFound(`Participant ${p.id} is not a member of vault ${vault.id}.`);
    if (p.status !== 'ACTIVATED') throw forbidden(`Participant ${p.id} is ${p.status}; its device must activate first.`, 'participant-not-activated');
    if (member.joined) throw conflict(`Participant ${p.id} has joined vault ${vault.id} already.`, 'already-joined');
    member.joined = true;
    if (vault.status === 'NOT_INITIALIZED' && vault.groups.every((g) => g.members.every((m) => m.joined))) {
      vault.status = 'INITIALIZED';
      ctx.logger.info({ vaultId: vault.id }, 'every member joined; vault initialized');
      await recordKeyCalculation(ctx, vault);
    }
    await ctx.store.put('vault', vault.id, vault);
    for (const op of await ctx.store.list<Operation>('operation')) {
      if (op.kind === 'JOIN_POLICY_VAULT' && op.vaultID === vault.id && op.status === 'PENDING' && op.member?.participantID === p.id) {
        await ctx.store.put('operation', op.operationID, {
          ...op,
          status: 'COMPLETED',
          statusText: statusText('COMPLETED'),
          answers: { [p.id]: { status: 'DONE', at: ctx.iso() } },
        });
      }
    }
    return vault;
  });
}

/**
 * The public-key calculation the vault's activation did, as a completed CALCULATE_PUBLIC_KEY
 * operation (`GET {mng}/operations/calculatePublicKey/{id}`, 1.0.2106): the vault's key, or its
 * BIP44 accounts' keys, and one fragment per member for each.
 */
async function recordKeyCalculation(ctx: EmulatorContext, vault: Vault): Promise<void> {
  const publicKeys =
    vault.hierarchy === 'NONE'
      ? [vault.publicKey]
      : Object.entries(vault.coins).flatMap(([coin, accounts]) =>
          accounts.map((a) =>
            toCustodyKeyId({ scheme: 'secp256k1', bytes: Uint8Array.from(bip32Root(vault.secret).derivePath(accountPath(Number(coin), a.index)).publicKey) }),
          ),
        );
  const fragments = vault.groups.reduce((n, g) => n + g.members.length, 0);
  const op = await newOperation(ctx, vault, 'CALCULATE_PUBLIC_KEY', `Calculate the public key of vault ${vault.name}`, {
    calculated: { publicKeys, totsParams: publicKeys.map((_, index) => ({ index, numberOfFragments: fragments })) },
  });
  await ctx.store.put('operation', op.operationID, { ...op, status: 'COMPLETED', statusText: statusText('COMPLETED') });
}

/** Member and policy-member status changes (quorum rule, `force`), and add-member operations. */
export function memberRoutes(ctx: EmulatorContext): Router {
  const r = Router();
  const store = ctx.store;

  async function setStatus(vaultId: string, participantId: string, status: 'DEACTIVATED' | 'ACTIVE' | 'ACTIVATED', force: boolean, policyId?: string) {
    return store.exclusive(async () => {
      const vault = await vaultOr404(ctx, vaultId);
      if (policyId !== undefined && policyId !== vault.policyId)
        throw notFound(`Policy ${policyId} is not a policy of vault ${vault.id}; its policy is ${vault.policyId}.`);
      const member = vault.groups.flatMap((g) => g.members).find((m) => m.id === participantId);
      if (!member) throw notFound(`Participant ${participantId} is not a member of vault ${vault.id}.`);
      const dir = await loadDirectory(ctx);
      if (status === 'DEACTIVATED' && member.status === 'ACTIVE') {
        const broken = groupBrokenWithout(vault, participantId, dir);
        if (broken && !force) {
          throw forbidden(
            `Too few active participants would remain in group '${broken.name}' (needs ${broken.requiredApprovals}); send force=true to suspend anyway (the vault may become unusable).`,
            'quorum-too-small',
          );
        }
      }
      member.status = status === 'DEACTIVATED' ? 'DEACTIVATED' : 'ACTIVE';
      await store.put('vault', vault.id, vault);
      return memberView(vault, participantId, dir);
    });
  }

  r.put('/vaults/:vaultId/members/:participantId/status', async (req, res) => {
    const q = parse(z.object({ force: queryFlag }).strict(), req.query, 'query');
    const body = parse(statusBody, req.body);
    res.json(await setStatus(req.params.vaultId, req.params.participantId, body.status, q.force ?? false));
  });
  r.put('/vaults/:vaultId/policies/:policyId/members/:participantId/status', async (req, res) => {
    const q = parse(z.object({ force: queryFlag }).strict(), req.query, 'query');
    const body = parse(statusBody, req.body);
    res.json(await setStatus(req.params.vaultId, req.params.participantId, body.status, q.force ?? false, req.params.policyId));
  });
  // Deprecated form: no force, 200 without a body.
  r.put('/vaults/:vaultId/members/:participantId', async (req, res) => {
    const body = parse(statusBody.extend({ policyId: z.string().max(100).optional() }), req.body);
    await setStatus(req.params.vaultId, req.params.participantId, body.status, false, body.policyId);
    res.status(200).end();
  });

  r.post('/vaults/:vaultId/approval_groups/:groupId/members', async (req, res) => {
    const body = parse(
      z.object({ participantID: z.string().min(1).max(100), description: z.string().max(2_000).default(''), policyId: z.string().max(100).optional() }),
      req.body,
    );
    const { op, participant } = await store.exclusive(async () => {
      const vault = await vaultOr404(ctx, req.params.vaultId);
      if (body.policyId !== undefined && body.policyId !== vault.policyId) throw notFound(`Policy ${body.policyId} is not a policy of vault ${vault.id}.`);
      const group = vault.groups.find((g) => g.name === req.params.groupId || String(g.order) === req.params.groupId);
      if (!group) throw notFound(`Vault ${vault.id} has no approval group '${req.params.groupId}'. Groups: ${vault.groups.map((g) => g.name).join(', ')}`);
      if (vault.status !== 'INITIALIZED')
        throw badRequest(`Vault ${vault.id} is ${vault.status}; members are added to an initialized vault.`, 'vault-not-initialized');
      const participant: Participant = await participantOr404(ctx, body.participantID);
      const dir = await loadDirectory(ctx);
      if (participant.accountID !== vault.accountID && !dir.accounts.get(participant.accountID)?.isGlobal) {
        throw badRequest(`Participant ${participant.id} belongs to another, non-global account.`, 'invalid-arguments');
      }
      if (vault.groups.some((g) => g.members.some((m) => m.id === participant.id)))
        throw notAcceptable(`Participant ${participant.id} is a member of vault ${vault.id} already.`, 'already-member');
      const pendingSame = (await store.list<Operation>('operation')).some(
        (o) => o.kind === 'ADD_MEMBER' && o.status === 'PENDING' && o.vaultID === vault.id && o.member?.participantID === participant.id,
      );
      if (pendingSame) throw notAcceptable(`An add-member operation for ${participant.id} is pending already.`, 'already-pending');
      const op = await newOperation(ctx, vault, 'ADD_MEMBER', body.description || `Add ${participant.name} to ${group.name}`, {
        member: { participantID: participant.id, groupName: group.name },
      });
      return { op, participant: participantDeviceView(participant, dir, 0), vault };
    });
    ctx.hooks.operationCreated(op);
    res.status(200).json({ operation: operationSummary(op, await vaultOr404(ctx, op.vaultID)), participant });
  });
  return r;
}
