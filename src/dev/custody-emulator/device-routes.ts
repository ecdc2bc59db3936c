import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { basicCredentials, sameText } from './auth.js';
import { approverPolicySchema, approverPolicy } from './automation.js';
import type { EmulatorContext } from './context.js';
import { answer, operationOr404, vaultOr404 } from './engine.js';
import { emulatorFaultsSchema, faultTable, setFaults } from './faults.js';
import { joinVault } from './members.js';
import type { Operation, Participant, Vault } from './model.js';
import { forbidden, parse, unauthorized } from './problem.js';
import { participantOr404 } from './participants.js';
import { loadDirectory, memberActive, operationDetails, operationView, participantView, vaultView } from './views.js';

/** A change to the approver policy: each field optional and without its default; `approvers: null` lets every member approve again. */
const policyFields = approverPolicySchema.shape;
const approverPolicyChange = z.strictObject({
  autoActivate: policyFields.autoActivate.unwrap().optional(),
  autoJoin: policyFields.autoJoin.unwrap().optional(),
  approve: policyFields.approve.unwrap().optional(),
  approvers: policyFields.approvers.unwrap().nullable().optional(),
  decliners: policyFields.decliners.unwrap().optional(),
  delayMs: policyFields.delayMs.unwrap().optional(),
});

/**
 * The emulator's administrator (its own credentials, not a custody user) in HTTP Basic. Wrong
 * credentials count against the failed-login limit of the name and the peer address, as logins do.
 */
function adminOnly(ctx: EmulatorContext): RequestHandler {
  return (req, res, next) => {
    const creds = basicCredentials(req);
    const peer = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    // Counted apart from the custody users of the same name.
    const name = `emulator-admin:${creds?.name ?? ''}`;
    if (creds) ctx.loginLimiter.refuseIfBlocked(name, peer);
    // Both comparisons run every time, so timing does not tell which part was wrong.
    const userOk = sameText(creds?.name ?? '', ctx.admin.user);
    const passwordOk = sameText(creds?.password ?? '', ctx.admin.password);
    if (creds && userOk && passwordOk) {
      ctx.loginLimiter.succeeded(name);
      return next();
    }
    if (creds) ctx.loginLimiter.failed(name, peer);
    res.set('WWW-Authenticate', 'Basic realm="custody-emulator"');
    next(unauthorized("The emulator-only routes need the emulator's admin credentials (HTTP Basic).", 'emulator-admin-required'));
  };
}

/**
 * Emulator-only routes, under `/emulator/v1`: what participants' phones and bots do
 * (activate, join a vault, approve or decline), the automatic approver policy, and fault
 * injection. None of this exists on a real custody service.
 */
export function deviceRoutes(ctx: EmulatorContext): Router {
  const r = Router();
  r.use(adminOnly(ctx));
  const store = ctx.store;

  r.post('/participants/:id/activate', async (req, res) => {
    const body = parse(z.object({ activationCode: z.string().min(1).max(100) }), req.body);
    const p = await store.exclusive(async () => {
      const p = await participantOr404(ctx, req.params.id);
      if (p.status !== 'NOT_ACTIVATED' || !p.activationCode)
        throw forbidden(`Participant ${p.id} is ${p.status}; there is nothing to activate.`, 'not-activatable');
      if (!sameText(body.activationCode, p.activationCode)) throw forbidden('The activation code is wrong.', 'wrong-activation-code');
      const next: Participant = { ...p, status: 'ACTIVATED', activationCode: undefined, modificationTime: ctx.iso() };
      await store.put('participant', p.id, next);
      return next;
    });
    res.json(participantView(p, await loadDirectory(ctx), '1.0.2106'));
  });

  r.post('/participants/:id/vaults/:vaultId/join', async (req, res) => {
    const vault = await joinVault(ctx, req.params.id, req.params.vaultId);
    res.json(vaultView(vault, await loadDirectory(ctx), 0));
  });

  /** What the participant's device would list: operations waiting for its answer. */
  r.get('/participants/:id/operations', async (req, res) => {
    const p = await participantOr404(ctx, req.params.id);
    const dir = await loadDirectory(ctx);
    const out: Record<string, unknown>[] = [];
    for (const op of await store.list<Operation>('operation')) {
      // A held sign request is not shown to its approvers until a time slot opens.
      if (op.status !== 'PENDING' || op.held || op.answers[p.id]) continue;
      const vault = await store.get<Vault>('vault', op.vaultID);
      const joinRequest = op.kind === 'JOIN_POLICY_VAULT' && op.member?.participantID === p.id;
      if (vault && (joinRequest || (op.kind !== 'JOIN_POLICY_VAULT' && memberActive(vault, p.id, dir)))) out.push(operationView(op, vault, dir));
    }
    res.json(out);
  });

  for (const decision of ['approve', 'decline'] as const) {
    r.post(`/participants/:id/operations/:operationId/${decision}`, async (req, res) => {
      await participantOr404(ctx, req.params.id);
      const op = await answer(ctx, String(req.params.operationId), req.params.id, decision);
      res.json(await operationDetails(ctx, op));
    });
  }

  /** The stored operation with its callback deliveries (delivered, failed, dropped) and, while held, its hold. */
  r.get('/operations/:operationId', async (req, res) => {
    const op = await operationOr404(ctx, req.params.operationId);
    res.json({ ...(await operationDetails(ctx, op)), deliveries: op.deliveries, ...(op.held ? { held: op.held } : {}) });
  });

  r.get('/approver-policy', async (_req, res) => {
    res.json(await approverPolicy(ctx));
  });
  /** A partial body changes only the fields it names; the answer is the whole policy. */
  r.put('/approver-policy', async (req, res) => {
    const change = parse(approverPolicyChange, req.body);
    const policy = await store.exclusive(async () => {
      const current = await approverPolicy(ctx);
      const { approvers, ...rest } = change;
      const next = approverPolicySchema.parse({ ...current, ...rest, approvers: approvers === null ? undefined : (approvers ?? current.approvers) });
      await store.put('meta', 'approver-policy', next);
      return next;
    });
    res.json(policy);
  });

  r.get('/faults', async (_req, res) => {
    res.json(await faultTable(ctx));
  });
  r.put('/faults', async (req, res) => {
    const body = parse(z.object({ vaultId: z.string().min(1).max(100).optional(), faults: emulatorFaultsSchema }), req.body);
    if (body.vaultId !== undefined) await vaultOr404(ctx, body.vaultId);
    res.json(await setFaults(ctx, body.faults, body.vaultId));
  });
  return r;
}
