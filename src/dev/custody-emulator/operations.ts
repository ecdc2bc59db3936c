import { Router } from 'express';
import { z } from 'zod';
import { accountOr404 } from './accounts.js';
import { destination } from './callback.js';
import type { EmulatorContext, Revision } from './context.js';
import { cancel, newOperation, operationOr404, vaultOr404 } from './engine.js';
import { listParams, page } from './listing.js';
import { OPERATION_STATUSES, type Operation, type OperationKind } from './model.js';
import { badRequest, notFound } from './problem.js';
import { heldRecord, holdText, policyOf, refusalText, ruleOutcome } from './policy.js';
import { validateSign } from './sign.js';
import { operationDetails, operationSummary, operationVaults, servedIn } from './views.js';
import { requireInitialized } from './vaults.js';

/** Sign requests and every operation's status, cancel and resend. */
export function operationRoutes(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  const store = ctx.store;
  const byKind = (path: string, kind: OperationKind) =>
    r.get(path, async (req, res) => {
      res.json(await operationDetails(ctx, await operationOr404(ctx, String(req.params.operationId), kind), revision));
    });

  r.post('/vaults/:id/sign', async (req, res) => {
    const op = await store.exclusive(async () => {
      const vault = await vaultOr404(ctx, req.params.id);
      requireInitialized(vault);
      const { description, payload } = validateSign(vault, req.body);
      await store.put('vault', vault.id, vault);
      const created = await newOperation(ctx, vault, 'SIGN', description, { sign: payload });
      // The policy's rules come before anyone is asked: a rule that refuses ends it DECLINED, the
      // weekly time slots hold it PENDING until one opens; either names the rule in statusText.
      const outcome = ruleOutcome(policyOf(vault), payload, ctx.now());
      if (!outcome) return created;
      const ruled: Operation =
        'refused' in outcome
          ? { ...created, status: 'DECLINED', statusText: refusalText(outcome.refused) }
          : { ...created, statusText: holdText(outcome.held), held: heldRecord(outcome.held) };
      await store.put('operation', ruled.operationID, ruled);
      return ruled;
    });
    if (op.status === 'DECLINED') {
      ctx.logger.info({ operationID: op.operationID, vaultId: op.vaultID, reason: op.statusText }, 'sign operation declined by a policy rule');
      ctx.hooks.operationEnded(op);
    } else if (op.held) {
      ctx.logger.info({ operationID: op.operationID, vaultId: op.vaultID, reason: op.statusText }, 'sign operation held by a policy rule');
      ctx.background.track(ctx.holds.check());
    } else {
      ctx.logger.info({ operationID: op.operationID, vaultId: op.vaultID, entries: op.sign?.dataToSign.length }, 'sign operation pending');
      ctx.hooks.operationCreated(op);
    }
    res.status(200).json({ operationID: op.operationID });
  });

  byKind('/operations/sign/:operationId', 'SIGN');
  byKind('/operations/addmember/:operationId', 'ADD_MEMBER');
  if (revision === '1.0.2106') {
    // Both came with 1.0.2106; the older revisions have no such routes.
    byKind('/operations/joinpolicyvault/:operationId', 'JOIN_POLICY_VAULT');
    byKind('/operations/calculatePublicKey/:operationId', 'CALCULATE_PUBLIC_KEY');
  }
  r.get('/operations/:operationId', async (req, res) => {
    const op = await operationOr404(ctx, req.params.operationId);
    if (!servedIn(op, revision)) throw notFound(`Operation ${op.operationID} does not exist.`);
    res.json(await operationDetails(ctx, op, revision));
  });

  r.post('/operations/sign/:operationId/resend', async (req, res) => {
    const op = await operationOr404(ctx, req.params.operationId, 'SIGN');
    if (op.status !== 'COMPLETED') throw badRequest(`Operation ${op.operationID} is ${op.status}; only completed operations can be resent.`, 'cannot-resend');
    if (!destination(ctx, op)) throw badRequest('No callback destination: the request named no callbackUrl and none is configured.', 'cannot-resend');
    ctx.hooks.operationCompleted(op);
    res.status(200).end();
  });

  r.post('/operations/:operationId/cancel', async (req, res) => {
    await cancel(ctx, req.params.operationId);
    res.status(200).end();
  });

  r.get('/accounts/:id/operations', async (req, res) => {
    const q = listParams(req.query, { status: z.enum(OPERATION_STATUSES).optional() });
    const account = await accountOr404(ctx, req.params.id);
    const vaults = await operationVaults(ctx);
    const rows = (await store.list<Operation>('operation'))
      .filter((o) => o.accountID === account.id && (!q.status || o.status === q.status) && servedIn(o, revision))
      .map((o) => operationSummary(o, vaults.get(o.vaultID), revision) as Record<string, string> & { description: string });
    res.json(
      page(
        rows,
        q,
        (o) => `${o.description} ${o.vaultName}`,
        { CreatedAt: (o) => o.createdAt as string, Status: (o) => o.status as string, Kind: (o) => o.kind as string },
        revision,
      ),
    );
  });
  return r;
}
