import { ConflictError, NotFoundError } from '../platform/errors.js';
import type { ReplacementKind } from '../ledger/adaptor.js';
import { vaultSource } from '../vaults/vault-addresses.js';
import { type Attempt, attemptsOf, fromStored, liveAttempts, type Operation, signedOf, toStored, unsignedOf, withAttempt } from './model/operation.js';
import type { PipelineDeps, WithdrawalDeps } from './pipeline-deps.js';
import { signCallbackUrl } from '../platform/api-base.js';

const NOT_REPLACEABLE = 'ERR_NOT_REPLACEABLE';
const verb = (kind: ReplacementKind) => (kind === 'cancel' ? 'cancelled' : 'sped up');

/** Why this operation cannot take a replacement now, or undefined. */
function refusal(op: Operation, kind: ReplacementKind): string | undefined {
  const id = op.id;
  if (op.status === 'SIGNED') return `withdrawal ${id} is SIGNED and being sent; it can be ${verb(kind)} once it is BROADCAST`;
  if (op.status !== 'BROADCAST') return `withdrawal ${id} is ${op.status}; only a BROADCAST withdrawal can be ${verb(kind)}`;
  const attempts = attemptsOf(op);
  if (attempts.some((a) => a.status === 'signing')) return `withdrawal ${id} already has a replacement waiting for its signatures`;
  const latest = liveAttempts(op).at(-1);
  if (latest === undefined) return `withdrawal ${id} has no transaction out on the network`;
  if (kind === 'speed-up' && attempts[latest]?.kind === 'cancel') return `withdrawal ${id} is being cancelled; use /cancel again to raise the cancel's fee`;
  // Any attempt out and mined (an older one can land while a later one waits) spent the nonce, sequence or inputs.
  if (liveAttempts(op).some((i) => (attempts[i]?.minedAt ?? 0) > 0)) return `withdrawal ${id} is already mined and waits for its confirmations`;
  return undefined;
}

/**
 * Speed-up or cancel of a broadcast withdrawal: the ledger's adaptor builds a replacement of
 * the latest attempt (same nonce, same inputs, or a fee-bump around it), which is stored as a
 * new attempt and goes to the custody service as its own sign request. Its callback is matched
 * by its digests like any other; the replacement job verifies, assembles and sends it.
 */
export async function replaceWithdrawal(
  deps: WithdrawalDeps,
  vaultId: string,
  /** Either id of the withdrawal (OperationStore.resolve). */
  id: string,
  kind: ReplacementKind,
  fee?: string,
): Promise<Operation> {
  const op = await deps.store.resolveInVault(vaultId, id);
  const refused = refusal(op, kind);
  if (refused) throw new ConflictError(refused, NOT_REPLACEABLE);
  const adaptor = deps.registry.get(op.ledgerId);
  if (!adaptor.replace) throw new ConflictError(`ledger ${op.ledgerId} cannot replace a sent transaction`, NOT_REPLACEABLE);
  const vault = await deps.vaults.find(vaultId);
  if (!vault) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
  const latest = liveAttempts(op).at(-1) as number;
  const unsigned = await adaptor.replace({
    kind,
    unsigned: fromStored(unsignedOf(op, latest)),
    signed: signedOf(op, latest),
    ...(fee ? { fee } : {}),
    source: await vaultSource(adaptor, vault, deps.config.bip44GapLimit, deps.vaults.addresses),
  });
  const at = new Date().toISOString();
  const attempt: Attempt = { kind, txids: [], fee: unsigned.fee.toString(), createdAt: at, status: 'signing', unsigned: toStored(unsigned) };
  let index = -1;
  await deps.store.update(op.id, (current) => {
    const late = refusal(current, kind);
    if (late) throw new ConflictError(late, NOT_REPLACEABLE);
    index = attemptsOf(current).length;
    return {
      ...current,
      attempts: [...attemptsOf(current), attempt],
      history: [...current.history, { status: current.status, at, detail: `${kind} requested (fee ${unsigned.fee} in base units)` }],
    };
  });
  // Indexed before the sign request goes out, so even an instant callback finds its operation.
  await deps.store.indexAttempt(
    op.id,
    unsigned.payloads.map((p) => p.digest),
  );
  try {
    const { operationID: signId } = await deps.custody.requestSign(vaultId, {
      description: `${kind} of: ${op.request.description}`,
      dataToSign: unsigned.payloads.map((p) => p.digest),
      publicKeys: unsigned.payloads.map((p) => p.keyId),
      rawTransactions: unsigned.payloads.map((p) => p.preimage ?? ''),
      ledgerHashAlgorithm: unsigned.payloads[0]?.hashAlgorithm ?? 'NONE',
      ledger: adaptor.ledgerId.toUpperCase(),
      providerData: JSON.stringify({ reference: op.id, attempt: index, kind, txs: unsigned.txs }),
      ...(callbackUrl(deps, adaptor.ledgerId) ? { callbackUrl: callbackUrl(deps, adaptor.ledgerId) } : {}),
    });
    await deps.store.indexAttempt(op.id, [], signId);
    return await deps.store.update(op.id, (o) => ({ ...o, attempts: withAttempt(o, index, (a) => ({ ...a, operationID: signId })) }));
  } catch (e) {
    const reason = `the custody service did not accept the sign request: ${(e as Error).message}`;
    await deps.store.update(op.id, (o) => ({ ...o, attempts: withAttempt(o, index, (a) => ({ ...a, status: 'failed', failureReason: reason })) }));
    throw e;
  }
}

function callbackUrl(deps: PipelineDeps, ledgerId: string): string | undefined {
  return deps.config.publicUrl ? signCallbackUrl(deps.config.publicUrl, ledgerId) : undefined;
}
