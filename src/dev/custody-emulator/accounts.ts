import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import type { EmulatorContext, Revision } from './context.js';
import { listParams, page, queryFlag } from './listing.js';
import type { Account, Operation, Participant, Vault } from './model.js';
import { conflict, forbidden, notFound, parse } from './problem.js';
import { servedIn } from './views.js';

const accountBody = z.object({ name: z.string().trim().min(1).max(200), isGlobal: z.boolean().optional() });

export async function accountOr404(ctx: EmulatorContext, id: string): Promise<Account> {
  const account = await ctx.store.get<Account>('account', id);
  if (!account) throw notFound(`Account ${id} does not exist.`);
  return account;
}

async function statsOf(ctx: EmulatorContext, account: Account, revision: Revision): Promise<Record<string, unknown>> {
  const [participants, vaults, operations] = await Promise.all([
    ctx.store.list<Participant>('participant'),
    ctx.store.list<Vault>('vault'),
    ctx.store.list<Operation>('operation'),
  ]);
  const mine = <T extends { accountID: string }>(rows: T[]) => rows.filter((r) => r.accountID === account.id);
  const p = mine(participants);
  const v = mine(vaults);
  const o = mine(operations).filter((x) => servedIn(x, revision));
  const stats = {
    participants: { total: p.length, inactive: p.filter((x) => x.status !== 'ACTIVATED').length },
    operations: { total: o.length, pending: o.filter((x) => x.status === 'PENDING').length },
    vaults: { total: v.length, inactive: v.filter((x) => x.status !== 'INITIALIZED').length },
  };
  // 1.0.1811 named the two members statsOperation and statsVaults.
  if (revision === '1.0.1811') return { participants: stats.participants, statsOperation: stats.operations, statsVaults: stats.vaults };
  return stats;
}

export function accountRoutes(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  const store = ctx.store;
  const view = async (a: Account, withStats: boolean | undefined) => ({
    id: a.id,
    name: a.name,
    isGlobal: a.isGlobal,
    ...(withStats ? { stats: await statsOf(ctx, a, revision) } : {}),
  });

  r.post('/accounts', async (req, res) => {
    const body = parse(accountBody, req.body);
    const account = await store.exclusive(async () => {
      const all = await store.list<Account>('account');
      if (all.some((a) => a.name === body.name)) throw conflict(`Account ${body.name} already exists.`, 'account-exists');
      const account: Account = { id: randomUUID(), name: body.name, isGlobal: body.isGlobal ?? false, createdAt: ctx.iso() };
      await store.put('account', account.id, account);
      return account;
    });
    res.status(201).json({ id: account.id, name: account.name, isGlobal: account.isGlobal });
  });

  r.get('/accounts', async (req, res) => {
    const q = listParams(req.query, { withStats: queryFlag });
    const accounts = await Promise.all((await store.list<Account>('account')).map((a) => view(a, q.withStats)));
    res.json(page(accounts, q, (a) => a.name, { Name: (a) => a.name, Global: (a) => a.isGlobal }, revision));
  });

  r.get('/accounts/:id', async (req, res) => {
    const q = parse(z.object({ withStats: queryFlag }).strict(), req.query, 'query');
    const account = await accountOr404(ctx, req.params.id);
    // The published sample wraps the account (with its stats) in an array; 1.0.2106 answers the object.
    const body = await view(account, revision === '1.0.2106' ? q.withStats : true);
    res.json(revision === '1.0.2106' ? body : [body]);
  });

  r.put('/accounts/:id', async (req, res) => {
    const body = parse(accountBody, req.body);
    await store.exclusive(async () => {
      const account = await accountOr404(ctx, req.params.id);
      const all = await store.list<Account>('account');
      if (all.some((a) => a.id !== account.id && a.name === body.name)) throw conflict(`Account ${body.name} already exists.`, 'account-exists');
      const isGlobal = body.isGlobal ?? account.isGlobal;
      if (isGlobal !== account.isGlobal) {
        const members = (await store.list<Participant>('participant')).filter((p) => p.accountID === account.id);
        if (members.length) throw conflict('The global flag cannot change once the account has participants.', 'global-flag-locked');
      }
      await store.put('account', account.id, { ...account, name: body.name, isGlobal });
    });
    res.status(200).end();
  });

  r.delete('/accounts/:id', async (req, res) => {
    await store.exclusive(async () => {
      const account = await accountOr404(ctx, req.params.id);
      const vaults = (await store.list<Vault>('vault')).filter((v) => v.accountID === account.id);
      const people = (await store.list<Participant>('participant')).filter((p) => p.accountID === account.id);
      if (vaults.length || people.length) {
        throw forbidden(`Account ${account.id} has ${vaults.length} vault(s) and ${people.length} participant(s); delete them first.`, 'account-not-empty');
      }
      await store.del('account', account.id);
    });
    res.status(200).end();
  });
  return r;
}
