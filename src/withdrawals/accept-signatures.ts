import { z } from 'zod';
import { ConflictError, VerificationError } from '../platform/errors.js';
import { parsePublicKey, storedPublicKey, type SignatureScheme } from '../ledger/public-key.js';
import { verifySignature } from '../ledger/signatures.js';
import { attemptsOf, unsignedOf } from './model/operation.js';
import type { Operation } from './model/operation.js';
import type { StoredSignature } from './store/operation-store.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { addBroadcastJob, addReplaceJob, type Queues } from './jobs/queues.js';

const hex = z.string().regex(/^(?:0x)?[0-9a-fA-F]+$/, 'must be hex');

/** The signing callback's body (spec "Events"). */
export const callbackBodySchema = z.object({
  publicKeys: z.array(z.string()).min(1),
  providerData: z.string(),
  dataToSign: z.array(hex).min(1),
  /** Empty when the callback only reports that the operation ended unsigned (see settle-sign-outcome). */
  signatures: z.array(hex),
  /** Recovery ids; an EdDSA operation has none, so its `v` may be empty or absent. */
  v: z.array(z.number().int()).optional(),
  originalEntryIds: z.array(z.number().int().min(0)).optional(),
});
export type CallbackBody = z.infer<typeof callbackBodySchema>;

export type AcceptDeps = Pick<PipelineDeps, 'store' | 'registry' | 'logger' | 'ed25519Keys'> & { queues: Pick<Queues, 'broadcast' | 'replace'> };

export const ACCEPT_OUTCOMES = ['queued', 'partial', 'duplicate'] as const;
export type AcceptOutcome = (typeof ACCEPT_OUTCOMES)[number];

const norm = (h: string): string => h.replace(/^0x/, '').toLowerCase();

function fail(reason: string, details: string, status = 400): never {
  throw new VerificationError(details, reason, status);
}

/**
 * Which stored payload each callback entry is, the digest the callback claims for it and the
 * key it echoes for it. `dataToSign` (and `publicKeys` with it, when it names one key per
 * digest) is either the subset matching the signatures or the whole original list.
 */
function entries(body: CallbackBody, n: number, scheme: string): { payload: number; digest: string; echoed: string | undefined }[] {
  if (body.signatures.length === 0) fail('malformed', 'the callback carries no signatures');
  const v = body.v ?? [];
  const edWithoutV = scheme === 'ed25519' && v.length === 0;
  if (!edWithoutV && body.signatures.length !== v.length) fail('malformed', 'signatures and v differ in length');
  const ids = body.originalEntryIds ?? body.signatures.map((_, i) => i);
  if (ids.length !== body.signatures.length) fail('malformed', 'originalEntryIds and signatures differ in length');
  if (new Set(ids).size !== ids.length || ids.some((i) => i >= n)) fail('malformed', `originalEntryIds must be distinct indexes below ${n}`);
  const subset = body.dataToSign.length === ids.length;
  if (!subset && body.dataToSign.length !== n) fail('digest-mismatch', `dataToSign has ${body.dataToSign.length} entries; the operation has ${n}`);
  const keys = body.publicKeys;
  const keysByPayload = !subset && keys.length === n;
  return ids.map((payload, j) => ({
    payload,
    digest: norm((subset ? body.dataToSign[j] : body.dataToSign[payload]) as string),
    echoed: keys.length === 1 ? keys[0] : keys[keysByPayload ? payload : j],
  }));
}

/**
 * The attempt whose transaction has this digest. A replacement asked for again after its sign
 * request failed builds the same transaction (same nonce, same fee), hence the same digests:
 * the attempt still waiting for its signatures is meant, not the failed one. 0 (the original)
 * when no attempt has it; the digest check then refuses the callback.
 */
export function attemptOfDigest(op: Operation, digest: string): number {
  const d = norm(digest);
  const carrying = attemptsOf(op).flatMap((_, i) => (unsignedOf(op, i).payloads.some((p) => p.digest === d) ? [i] : []));
  return carrying.find((i) => i > 0 && attemptsOf(op)[i]?.status === 'signing') ?? carrying[0] ?? 0;
}

/** Whether the keys a callback echoes are the stored keys of the payloads its digests name. */
function echoesKeysOf(op: Operation, scheme: SignatureScheme, dataToSign: string[], publicKeys: string[]): boolean {
  const digests = dataToSign.map(norm);
  const payloads = attemptsOf(op).flatMap((_, i) => unsignedOf(op, i).payloads);
  return digests.every((d, j) => {
    const stored = payloads.find((p) => p.digest === d);
    const echoed = publicKeys.length === 1 ? publicKeys[0] : publicKeys[j];
    if (!stored || echoed === undefined) return false;
    try {
      return Buffer.compare(parsePublicKey(echoed, scheme).bytes, storedPublicKey(stored.publicKey, scheme).bytes) === 0;
    } catch {
      return false;
    }
  });
}

/**
 * The stored operation whose digests these are, on the ledger the caller names. Several
 * operations can share digests (an Ethereum transaction does not name its sender); the one
 * whose stored keys the callback echoes is meant, and among equals the one still waiting.
 * The keys only choose: every signature is still verified against the chosen operation.
 */
export async function operationForDigests(
  deps: Pick<AcceptDeps, 'store' | 'registry'>,
  ledgerId: string,
  dataToSign: string[],
  publicKeys: string[] = [],
): Promise<Operation> {
  const stored = await deps.store.forDigests(dataToSign.map(norm));
  const ops = stored.filter((o) => o.ledgerId.toLowerCase() === ledgerId.toLowerCase());
  if (ops.length === 0) {
    if (stored.length > 0) fail('ledger-mismatch', `ledgerId '${ledgerId}' does not match the operation's ledger`);
    fail('unknown-operation', 'dataToSign does not match the digests of one known operation', 404);
  }
  if (ops.length === 1) return ops[0] as Operation;
  const scheme = deps.registry.get(ledgerId).scheme;
  const keyed = publicKeys.length ? ops.filter((o) => echoesKeysOf(o, scheme, dataToSign, publicKeys)) : ops;
  const pool = keyed.length ? keyed : ops;
  return pool.find((o) => o.status === 'EXECUTING') ?? pool.find((o) => o.status !== 'FAILED') ?? (pool[0] as Operation);
}

/**
 * The one path signatures take into the system, from the HTTP callback and from
 * reconciliation alike: match the operation by the digests we stored, check the ledger,
 * the digests and the echoed keys against the stored ones, verify every signature against
 * the stored digest and key, store them (partial sets accumulate), and enqueue the
 * broadcast once the set is complete. The job id is deterministic, so duplicates and
 * resends enqueue nothing new.
 */
export async function acceptSignatures(
  deps: AcceptDeps,
  ledgerId: string,
  body: CallbackBody,
  /** The operation the caller already knows (reconciliation), instead of finding it by digests. */
  known?: Operation,
): Promise<{ outcome: AcceptOutcome; operation: Operation }> {
  const op = known ?? (await operationForDigests(deps, ledgerId, body.dataToSign, body.publicKeys));
  if (op.ledgerId.toLowerCase() !== ledgerId.toLowerCase()) fail('ledger-mismatch', `ledgerId '${ledgerId}' does not match the operation's ledger`);
  const adaptor = deps.registry.get(op.ledgerId);
  // The original or a replacement (speed-up, cancel): each has its own digests.
  const attempt = attemptOfDigest(op, body.dataToSign[0] as string);
  const payloads = unsignedOf(op, attempt).payloads;
  const verified = new Map<number, StoredSignature>();
  for (const [j, { payload, digest, echoed }] of entries(body, payloads.length, adaptor.scheme).entries()) {
    const stored = payloads[payload] as (typeof payloads)[number];
    if (digest !== stored.digest) fail('digest-mismatch', `entry ${j}: digest differs from the stored digest of payload ${payload}`);
    const storedKey = storedPublicKey(stored.publicKey, adaptor.scheme);
    let echoedKey;
    try {
      echoedKey = echoed === undefined ? undefined : parsePublicKey(echoed, adaptor.scheme);
    } catch {
      fail('key-mismatch', `entry ${j}: publicKeys entry is not a key`);
    }
    if (!echoedKey || Buffer.compare(echoedKey.bytes, storedKey.bytes) !== 0) {
      fail('key-mismatch', `entry ${j}: the public key differs from the stored key of payload ${payload}`);
    }
    const sig = verifySignature(stored.digest, body.signatures[j] as string, body.v?.[j], storedKey, deps.ed25519Keys);
    verified.set(payload, { signature: Buffer.from(sig.signature).toString('hex'), recoveryId: sig.recoveryId });
  }
  if (attempt > 0) {
    if (attemptsOf(op)[attempt]?.status !== 'signing') return { outcome: 'duplicate', operation: op };
    const { added, total } = await deps.store.addSignatures(op.id, verified, attempt);
    if (total < payloads.length) return { outcome: added > 0 ? 'partial' : 'duplicate', operation: op };
    await addReplaceJob(deps.queues, op, attempt);
    return { outcome: added > 0 ? 'queued' : 'duplicate', operation: op };
  }
  if (op.status === 'FAILED') throw new ConflictError(`withdrawal ${op.id} has FAILED (${op.failureReason}); it will not be broadcast`, 'ERR_OPERATION_FAILED');
  if (op.status !== 'EXECUTING') return { outcome: 'duplicate', operation: op };
  const { added, total } = await deps.store.addSignatures(op.id, verified);
  if (total < op.unsigned.payloads.length) return { outcome: added > 0 ? 'partial' : 'duplicate', operation: op };
  // Every complete copy enqueues (the job id makes it one job), so a copy whose enqueue failed
  // with a 503 is covered by the next; only the copy that completed the set answers `queued`.
  await addBroadcastJob(deps.queues, op);
  return { outcome: added > 0 ? 'queued' : 'duplicate', operation: op };
}
