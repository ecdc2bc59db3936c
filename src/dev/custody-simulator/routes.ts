import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Faults } from './faults.js';
import type { VaultScheme } from './keys.js';
import { badRequest, problemHandler, ProblemError, unknownRoute } from './problem.js';
import { describeIssues } from './sign-request.js';

/** What the HTTP surface needs from the simulator; every method throws ProblemError on bad input. */
export interface SimulatorCore {
  createVault(scheme: VaultScheme, opts: { name?: string; ledger?: string; hierarchy?: 'NONE' | 'BIP44' }): { vaultId: string; publicKey: string };
  vaultPublicKey(vaultId: string): { publicKey: string };
  accountBackup(vaultId: string, coin: string, account: string): unknown;
  cancel(id: string): void;
  requestSign(vaultId: string, body: unknown): { operationID: string };
  getOperation(id: string): {
    operationID: string;
    kind: string;
    status: string;
    createdAt: string;
    vaultID: string;
    description: string;
    isApproved: boolean;
    dataToSign: string[];
    publicKeys: string[];
    signatures: string[];
    v: number[];
  };
  resend(id: string): void;
  setFaults(faults: Faults, vaultId?: string): void;
  faults(): unknown;
  status(): unknown;
  onUnexpected(err: unknown): void;
}

const createVaultSchema = z.object({
  name: z.string().min(1).max(200).optional(),
  scheme: z.enum(['ECDSA', 'EDDSA']).default('ECDSA'),
  ledger: z.string().min(1).max(64).optional(),
  hierarchy: z.enum(['NONE', 'BIP44']).default('NONE'),
});

const devFaultsSchema = z.object({ vaultId: z.string().min(1).optional(), faults: z.unknown() });

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw badRequest(describeIssues(r.error));
  return r.data;
}

const STATUS_TEXT: Record<string, string> = {
  PENDING: 'Waiting for approvals',
  COMPLETED: 'Signed',
  DECLINED: 'Declined by a quorum member',
  CANCELED: 'Canceled',
  FAILED: 'Signing failed',
  ERROR: 'Internal error',
};

const digestOf = (text: string) => createHash('sha256').update(text).digest();

/** Bearer check in constant time; hashing first makes the lengths equal. */
function bearer(apiKey: string): RequestHandler {
  const expected = digestOf(apiKey);
  return (req, _res, next) => {
    const m = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
    if (m && timingSafeEqual(digestOf(m[1] as string), expected)) return next();
    next(new ProblemError(401, 'unauthorized', 'Unauthorized', 'Invalid authentication data: send "Authorization: Bearer <API_KEY>".'));
  };
}

/**
 * The management surface the connector calls, mounted at `/custody/api/v1.0/mng` and at
 * the older `/casp/api/v1.0/mng`, plus `POST /dev/faults` for fault injection.
 */
export function buildApp(core: SimulatorCore, opts: { apiKey?: string }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '8mb' }));
  const auth: RequestHandler = opts.apiKey ? bearer(opts.apiKey) : (_req, _res, next) => next();

  const mng = express.Router();
  // The spec shows status without credentials: monitoring must work without an API key.
  mng.get('/status', (_req, res) => {
    res.json(core.status());
  });
  mng.use(auth);
  mng.post('/vaults', (req, res) => {
    const body = parse(createVaultSchema, req.body);
    res.status(201).json(core.createVault(body.scheme, { name: body.name, ledger: body.ledger, hierarchy: body.hierarchy }));
  });
  mng.get('/vaults/:vaultId/publickey', (req, res) => {
    res.json(core.vaultPublicKey(req.params.vaultId));
  });
  mng.get('/vaults/:vaultId/coins/:coinType/accounts/:account/backup', (req, res) => {
    res.json(core.accountBackup(req.params.vaultId, req.params.coinType, req.params.account));
  });
  mng.post('/vaults/:vaultId/sign', (req, res) => {
    res.json(core.requestSign(req.params.vaultId, req.body));
  });
  mng.get('/operations/sign/:operationId', (req, res) => {
    const op = core.getOperation(req.params.operationId);
    res.json({
      operationID: op.operationID,
      kind: op.kind,
      status: op.status,
      statusText: STATUS_TEXT[op.status] ?? op.status,
      createdAt: op.createdAt,
      vaultID: op.vaultID,
      description: op.description,
      isApproved: op.isApproved,
      dataToSign: op.dataToSign,
      publicKeys: op.publicKeys,
      signatures: op.signatures,
      v: op.v,
    });
  });
  mng.post('/operations/sign/:operationId/resend', (req, res) => {
    core.resend(req.params.operationId);
    res.status(200).end();
  });
  mng.post('/operations/:operationId/cancel', (req, res) => {
    core.cancel(req.params.operationId);
    res.status(200).end();
  });

  const dev = express.Router();
  dev.use(auth);
  dev.get('/faults', (_req, res) => {
    res.json(core.faults());
  });
  dev.post('/faults', (req, res) => {
    const body = parse(devFaultsSchema, req.body);
    core.setFaults(body.faults as Faults, body.vaultId);
    res.json(core.faults());
  });

  app.use('/custody/api/v1.0/mng', mng);
  app.use('/casp/api/v1.0/mng', mng);
  app.use('/dev', dev);
  app.use(unknownRoute);
  app.use(problemHandler((err) => core.onUnexpected(err)));
  return app;
}
