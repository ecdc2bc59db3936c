/**
 * Custody simulator: a development and test stand-in for the custody service's management
 * API. It is NOT a custody service: vault keys are generated with a plain RNG and live in
 * this process's memory, approvals come from simulated bots on a timer, and everything is
 * lost on restart. It exists so the connector, the callback receiver and the worker can be
 * exercised over real HTTP, including the faults a real service shows.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { BIP32Interface } from 'bip32';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Express } from 'express';
import pino, { type Logger } from 'pino';
import { callbackUrl, deliver, type DeliveryOutcome } from './callback-sender.js';
import { applyContentFaults, callbackBodies, faultsSchema, type Faults } from './faults.js';
import { createKey, type SimKey, type VaultScheme } from './keys.js';
import { accountBackup, createKeychain, notSupported, type SimAccountBackup } from './bip44-accounts.js';
import { badRequest, notFound, ProblemError } from './problem.js';
import { buildApp, type SimulatorCore } from './routes.js';
import { describeIssues, hexBytes, validateSignRequest, type SignRequestBody } from './sign-request.js';

export interface QuorumOptions {
  /** Simulated approvers (bots) in the vault's group. */
  approvers: number;
  /** Approvals needed before signing. */
  required: number;
  /** Time between one approval and the next. */
  approvalDelayMs: number;
}

export interface CustodySimulatorOptions {
  /**
   * HMAC secret for callback authentication (see security/callback-hmac.ts). Without it,
   * callbacks carry no HMAC headers, as the real custody service sends them.
   */
  secret?: string;
  /** Where callbacks go when a sign request names no callbackUrl: the receiver's `{base}`. */
  callbackBaseUrl?: string;
  /** When set, every management call but `GET /status` needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  quorum?: QuorumOptions;
  /** How hard a callback is pushed before giving up. */
  callbackRetry?: { attempts?: number; baseDelayMs?: number; timeoutMs?: number };
  logger?: Logger;
  fetch?: typeof fetch;
}

export interface SimVaultInfo {
  vaultId: string;
  name: string;
  scheme: VaultScheme;
  ledger?: string;
  /** `BIP44` vaults serve account backups instead of a single public key. */
  hierarchy: 'NONE' | 'BIP44';
  /** As custody reports it: DER SPKI hex uppercase (ECDSA) or raw hex (EdDSA). */
  publicKey: string;
}

interface SimVault extends Omit<SimVaultInfo, 'publicKey'> {
  key: SimKey;
  keychain?: BIP32Interface;
}

export interface SimOperation {
  operationID: string;
  kind: 'QUORUM_SIGN';
  status: 'PENDING' | 'COMPLETED' | 'DECLINED' | 'CANCELED' | 'FAILED' | 'ERROR';
  createdAt: string;
  vaultID: string;
  description: string;
  isApproved: boolean;
  ledger: string;
  providerData: string;
  dataToSign: string[];
  publicKeys: string[];
  signatures: string[];
  v: number[];
  callbackUrl?: string;
  /** Names of the bots that approved, in order. */
  approvals: string[];
  /** One entry per delivery (the first, then each resend), once it finished. */
  deliveries: DeliveryOutcome[];
}

export interface CustodySimulator {
  app: Express;
  createVault(scheme?: VaultScheme, opts?: { name?: string; ledger?: string; hierarchy?: 'NONE' | 'BIP44' }): SimVaultInfo;
  vaults(): SimVaultInfo[];
  /** Replaces the faults of one vault, or the global ones when `vaultId` is absent. */
  setFaults(faults: Faults, vaultId?: string): void;
  operations(): SimOperation[];
  operation(id: string): SimOperation | undefined;
  /** Resolves once no approval or callback is in flight. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export const SIMULATOR_VERSION = 'simulator-0.1.0 (in-memory keys; not a custody service)';

export function createCustodySimulator(opts: CustodySimulatorOptions): CustodySimulator {
  const logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'custody-simulator' });
  const quorum = opts.quorum ?? { approvers: 3, required: 2, approvalDelayMs: 100 };
  if (!(quorum.required >= 1 && quorum.required <= quorum.approvers)) {
    throw new Error(`quorum.required must be between 1 and approvers (${quorum.approvers}), got ${quorum.required}`);
  }
  const delivery = {
    secret: opts.secret,
    fetch: opts.fetch ?? fetch,
    logger,
    attempts: opts.callbackRetry?.attempts ?? 5,
    baseDelayMs: opts.callbackRetry?.baseDelayMs ?? 500,
    timeoutMs: opts.callbackRetry?.timeoutMs ?? 10_000,
  };
  const vaults = new Map<string, SimVault>();
  const ops = new Map<string, SimOperation>();
  const faults = { global: {} as Faults, byVault: new Map<string, Faults>() };
  const inFlight = new Set<Promise<unknown>>();
  const closing = new AbortController();
  // Every approval and callback in flight waits on it: a batch of 1,000 sign requests is 1,000
  // listeners at once (each removed when its wait ends), not a leak to warn about.
  setMaxListeners(Infinity, closing.signal);

  const info = (v: SimVault): SimVaultInfo => ({
    vaultId: v.vaultId,
    name: v.name,
    scheme: v.scheme,
    hierarchy: v.hierarchy,
    ...(v.ledger ? { ledger: v.ledger } : {}),
    publicKey: v.key.keyId,
  });
  const faultsFor = (vaultId: string): Faults => ({ ...faults.global, ...faults.byVault.get(vaultId) });
  const track = (work: Promise<unknown>) => {
    const p = work.catch((err: unknown) => {
      if (!closing.signal.aborted) logger.error({ err }, 'simulator background work failed');
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const vaultOf = (vaultId: string): SimVault => {
    const vault = vaults.get(vaultId);
    if (!vault) throw notFound(`Vault ${vaultId} does not exist`);
    return vault;
  };

  function createVault(scheme: VaultScheme = 'ECDSA', o: { name?: string; ledger?: string; hierarchy?: 'NONE' | 'BIP44' } = {}): SimVaultInfo {
    const vaultId = randomUUID();
    const hierarchy = o.hierarchy ?? 'NONE';
    if (hierarchy === 'BIP44' && scheme !== 'ECDSA') throw badRequest('BIP44 vaults are ECDSA vaults', 'invalid_hierarchy');
    const vault: SimVault = {
      vaultId,
      name: o.name ?? `vault-${vaultId.slice(0, 8)}`,
      scheme,
      ledger: o.ledger,
      hierarchy,
      key: createKey(scheme),
      ...(hierarchy === 'BIP44' ? { keychain: createKeychain() } : {}),
    };
    vaults.set(vaultId, vault);
    logger.info({ vaultId, scheme }, 'vault created');
    return info(vault);
  }

  async function sendCallback(op: SimOperation): Promise<void> {
    const vault = vaultOf(op.vaultID);
    const url = callbackUrl(op.callbackUrl, opts.callbackBaseUrl, op.ledger);
    if (!url) {
      logger.warn({ operationID: op.operationID }, 'no callback destination; operation completed without callback');
      return;
    }
    const body = { publicKeys: op.publicKeys, providerData: op.providerData, dataToSign: op.dataToSign, signatures: op.signatures, v: op.v };
    const current = faultsFor(op.vaultID);
    const outcome = await deliver(url, callbackBodies(body, vault.scheme, current), current, {
      ...delivery,
      logger: logger.child({ operationID: op.operationID }),
      signal: closing.signal,
    });
    op.deliveries.push(outcome);
  }

  /** An operation that ends without signatures; with `notifyEnd` a callback without signatures says so. */
  async function endUnsigned(op: SimOperation, status: Exclude<SimOperation['status'], 'PENDING' | 'COMPLETED'>): Promise<void> {
    op.status = status;
    logger.info({ operationID: op.operationID, status }, 'operation ended unsigned');
    if (faultsFor(op.vaultID).notifyEnd) await sendCallback(op);
  }

  async function runQuorum(op: SimOperation, vault: SimVault): Promise<void> {
    const bots = Array.from({ length: quorum.approvers }, (_, i) => `bot-${i + 1}`).sort(() => Math.random() - 0.5);
    for (const bot of bots.slice(0, quorum.required)) {
      await sleep(quorum.approvalDelayMs, undefined, { signal: closing.signal });
      if (op.status !== 'PENDING' || faultsFor(vault.vaultId).holdApprovals) return;
      const end = faultsFor(vault.vaultId).end;
      if (end) return endUnsigned(op, end);
      op.approvals.push(bot);
    }
    if (op.status !== 'PENDING') return;
    const signed = op.dataToSign.map((d) => vault.key.sign(hexBytes(d)));
    const shaped = applyContentFaults(
      vault.scheme,
      { signatures: signed.map((s) => s.signature), v: signed.map((s) => s.v) },
      faultsFor(vault.vaultId),
    );
    Object.assign(op, shaped, { isApproved: true, status: 'COMPLETED' });
    logger.info({ operationID: op.operationID, approvals: op.approvals.length }, 'quorum reached; operation signed');
    await sendCallback(op);
  }

  function requestSign(vaultId: string, input: unknown): { operationID: string } {
    const vault = vaultOf(vaultId);
    const req: SignRequestBody = validateSignRequest(vault.key.publicKey, vaultId, input);
    const op: SimOperation = {
      operationID: randomUUID(),
      kind: 'QUORUM_SIGN',
      status: 'PENDING',
      createdAt: new Date().toISOString(),
      vaultID: vaultId,
      description: req.description,
      isApproved: false,
      ledger: req.ledger,
      providerData: req.providerData,
      dataToSign: req.dataToSign,
      publicKeys: req.publicKeys,
      signatures: [],
      v: [],
      callbackUrl: req.callbackUrl,
      approvals: [],
      deliveries: [],
    };
    ops.set(op.operationID, op);
    track(runQuorum(op, vault));
    logger.info({ operationID: op.operationID, vaultId, entries: req.dataToSign.length }, 'sign operation pending');
    return { operationID: op.operationID };
  }

  function getOperation(id: string): SimOperation {
    const op = ops.get(id);
    if (!op) throw notFound(`Sign operation ${id} does not exist`);
    return op;
  }

  function cancel(id: string): void {
    const op = getOperation(id);
    if (op.status !== 'PENDING') throw new ProblemError(409, 'cannot_cancel', 'Conflict', `Operation ${id} is ${op.status}; only pending operations can be canceled`);
    track(endUnsigned(op, 'CANCELED'));
  }

  function backupOf(vaultId: string, coin: string, account: string): SimAccountBackup {
    const vault = vaultOf(vaultId);
    if (!vault.keychain) throw notSupported(`Vault ${vaultId} is not a BIP44 vault`);
    return accountBackup(vaultId, vault.keychain, coin, account);
  }

  function resend(id: string): void {
    const op = getOperation(id);
    if (op.status !== 'COMPLETED') throw badRequest(`Operation ${id} is ${op.status}; only completed operations can be resent`, 'cannot_resend');
    if (!callbackUrl(op.callbackUrl, opts.callbackBaseUrl, op.ledger)) throw badRequest('No callback destination is configured', 'cannot_resend');
    track(sendCallback(op));
  }

  function setFaults(input: Faults, vaultId?: string): void {
    const parsed = faultsSchema.safeParse(input ?? {});
    if (!parsed.success) throw badRequest(describeIssues(parsed.error), 'invalid_faults');
    if (vaultId === undefined) faults.global = parsed.data;
    else faults.byVault.set(vaultOf(vaultId).vaultId, parsed.data);
  }

  const core: SimulatorCore = {
    createVault,
    vaultPublicKey: (id: string) => {
      const vault = vaultOf(id);
      if (vault.keychain) throw notSupported(`Vault ${id} is a BIP44 vault: read its accounts' backups`);
      return { publicKey: vault.key.keyId };
    },
    cancel,
    accountBackup: backupOf,
    requestSign,
    getOperation,
    resend,
    setFaults,
    faults: () => ({ global: faults.global, vaults: Object.fromEntries(faults.byVault) }),
    // The 1.0.2106 shape: health is in the parts; the revision lists no top-level `healthy`.
    status: () => ({
      version: SIMULATOR_VERSION,
      keyservice: { healthy: true },
      db: { healthy: true, schemaVersion: 'memory' },
      nativeCrypto: { healthy: true },
    }),
    onUnexpected: (err: unknown) => logger.error({ err }, 'simulator route failed'),
  };
  const app = buildApp(core, { apiKey: opts.apiKey });

  return {
    app,
    createVault,
    vaults: () => [...vaults.values()].map(info),
    setFaults,
    operations: () => [...ops.values()].map((o) => structuredClone(o)),
    operation: (id) => (ops.has(id) ? structuredClone(ops.get(id)) : undefined),
    async settled() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    async close() {
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
