import { randomInt, randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { accountOr404 } from './accounts.js';
import type { EmulatorContext, Revision } from './context.js';
import { withdrawPendingAnswers } from './engine.js';
import { listParams, page, queryFlag } from './listing.js';
import type { Operation, Participant, Vault } from './model.js';
import { conflict, forbidden, notAcceptable, notFound, parse } from './problem.js';
import { groupBrokenWithout } from './quorum.js';
import { loadDirectory, participantView } from './views.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const text = z.string().trim().min(1).max(200);

export const activationCode = (): string => String(randomInt(0, 1e10)).padStart(10, '0');

export async function participantOr404(ctx: EmulatorContext, id: string): Promise<Participant> {
  const p = await ctx.store.get<Participant>('participant', id);
  if (!p) throw notFound(`Participant ${id} does not exist.`);
  return p;
}

export function participantRoutes(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  const store = ctx.store;

  r.post('/accounts/:id/participants', async (req, res) => {
    const body = parse(z.object({ name: text, email: z.string().trim().max(320), role: text }), req.body);
    const p = await store.exclusive(async () => {
      const account = await accountOr404(ctx, req.params.id);
      if (!EMAIL.test(body.email)) throw notAcceptable(`E-mail '${body.email}' is not valid.`, 'invalid-email');
      const mine = (await store.list<Participant>('participant')).filter((x) => x.accountID === account.id);
      if (mine.some((x) => x.name === body.name || x.email === body.email))
        throw conflict(`A participant named ${body.name} or with e-mail ${body.email} exists in this account.`, 'participant-exists');
      const p: Participant = {
        id: randomUUID(),
        accountID: account.id,
        name: body.name,
        email: body.email,
        role: body.role,
        status: 'NOT_ACTIVATED',
        activationCode: activationCode(),
        deviceType: /bot/i.test(body.role) ? 'BOT' : 'MOBILE',
        createdAt: ctx.iso(),
        modificationTime: ctx.iso(),
      };
      await store.put('participant', p.id, p);
      return p;
    });
    await ctx.hooks.participantCreated(p);
    res.status(201).json({ id: p.id, activationCode: p.activationCode, name: p.name });
  });

  r.get('/accounts/:id/participants', async (req, res) => {
    const q = listParams(req.query, { withGlobal: queryFlag, withDeactivated: queryFlag });
    const account = await accountOr404(ctx, req.params.id);
    const dir = await loadDirectory(ctx);
    const vaults = await store.list<Vault>('vault');
    const ids = new Set([...dir.participants.values()].filter((p) => p.accountID === account.id).map((p) => p.id));
    if (q.withGlobal) {
      for (const v of vaults.filter((x) => x.accountID === account.id)) {
        for (const m of v.groups.flatMap((g) => g.members)) {
          const p = dir.participants.get(m.id);
          if (p && p.accountID !== account.id && dir.accounts.get(p.accountID)?.isGlobal) ids.add(p.id);
        }
      }
    }
    const rows = [...ids]
      .map((id) => dir.participants.get(id) as Participant)
      .filter((p) => q.withDeactivated || p.status !== 'DEACTIVATED')
      .map((p) => participantView(p, dir, revision, vaults) as Record<string, string> & { name: string });
    res.json(page(rows, q, (p) => p.name, { Name: (p) => p.name, Status: (p) => p.status as string, Email: (p) => p.email as string }, revision));
  });

  r.get('/participants/:id', async (req, res) => {
    const q = parse(z.object({ withVaults: queryFlag }).strict(), req.query, 'query');
    const p = await participantOr404(ctx, req.params.id);
    const vaults = revision === '1.0.1811' && q.withVaults ? await store.list<Vault>('vault') : undefined;
    res.json(participantView(p, await loadDirectory(ctx), revision, vaults));
  });

  r.put('/participants/:id', async (req, res) => {
    const body = parse(
      z.object({
        name: text.optional(),
        email: z.string().trim().max(320).optional(),
        role: text.optional(),
        status: z.enum(['ACTIVATED', 'DEACTIVATED']).optional(),
      }),
      req.body,
    );
    await store.exclusive(async () => {
      const p = await participantOr404(ctx, req.params.id);
      if (body.email !== undefined && !EMAIL.test(body.email)) throw notAcceptable(`E-mail '${body.email}' is not valid.`, 'invalid-email');
      let status = p.status;
      if (body.status === 'DEACTIVATED' && p.status !== 'DEACTIVATED') {
        const dir = await loadDirectory(ctx);
        for (const v of await store.list<Vault>('vault')) {
          const broken = groupBrokenWithout(v, p.id, dir);
          if (broken)
            throw conflict(
              `Deactivating ${p.name} would leave group '${broken.name}' of vault ${v.id} below ${broken.requiredApprovals} approvals.`,
              'cannot-deactivate',
            );
        }
        status = 'DEACTIVATED';
      }
      // Reactivation of a deactivated participant; one never activated still needs its device.
      if (body.status === 'ACTIVATED' && p.status === 'DEACTIVATED') status = 'ACTIVATED';
      const next = { ...p, name: body.name ?? p.name, email: body.email ?? p.email, role: body.role ?? p.role, status, modificationTime: ctx.iso() };
      await store.put('participant', p.id, next);
    });
    res.status(200).end();
  });

  r.delete('/participants/:id', async (req, res) => {
    await store.exclusive(async () => {
      const p = await participantOr404(ctx, req.params.id);
      const related = (await store.list<Vault>('vault')).filter((v) => v.groups.some((g) => g.members.some((m) => m.id === p.id)));
      if (related.length) throw forbidden(`Participant ${p.id} is a member of ${related.length} vault(s).`, 'participant-has-vaults');
      await store.del('participant', p.id);
    });
    res.status(200).end();
  });

  r.post('/participants/:id/reactivate', async (req, res) => {
    const { p, reopened } = await store.exclusive(async () => {
      const p = await participantOr404(ctx, req.params.id);
      const pending = (await store.list<Operation>('operation')).some(
        (o) => o.kind === 'JOIN_POLICY_VAULT' && o.status === 'PENDING' && o.member?.participantID === p.id,
      );
      if (pending) throw forbidden(`Participant ${p.id} has a pending request to join a vault.`, 'pending-join-request');
      // A new code re-credentials a lost or replaced device: the old device no longer counts,
      // neither for what it may do next nor for the approvals it gave to pending operations.
      const next: Participant = { ...p, status: 'NOT_ACTIVATED', activationCode: activationCode(), modificationTime: ctx.iso() };
      await store.put('participant', p.id, next);
      return { p: next, reopened: await withdrawPendingAnswers(ctx, p.id) };
    });
    await ctx.hooks.participantCreated(p);
    // The automatic approver policy plans those operations again, now short of an answer.
    reopened.forEach((op) => ctx.hooks.operationCreated(op));
    res.status(200).json({ id: p.id, activationCode: p.activationCode, name: p.name });
  });
  return r;
}
