import type { LedgerAdaptor, UnsignedWithdrawal } from '../ledger/adaptor.js';
import { signCallbackUrl } from '../platform/api-base.js';
import { failOperation } from './fail-operation.js';
import type { Operation } from './model/operation.js';
import type { WithdrawalDeps } from './pipeline-deps.js';

/**
 * The withdrawal ended FAILED (a cancel, reconciliation) while its sign request was on its way:
 * the sign operation just made must not ask approvers to sign it. Canceled at the custody
 * service; the withdrawal stays FAILED whatever the outcome, so the outcome is only logged.
 * A withdrawal that moved on instead (signed by a fast callback) is left alone by the caller.
 */
async function cancelLateSignOperation(deps: WithdrawalDeps, op: Operation, operationID: string): Promise<void> {
  const ids = { withdrawalId: op.id, operationID };
  try {
    await deps.custody.cancelOperation(operationID);
    deps.logger.warn(ids, 'withdrawal ended while its sign request was on its way; its sign operation was canceled at the custody service');
  } catch (err) {
    deps.logger.error(
      { ...ids, err },
      'withdrawal ended while its sign request was on its way; its sign operation could not be canceled: cancel it at the custody service',
    );
  }
}

/**
 * Asks the custody service to sign a stored withdrawal's crafted transactions (their digests are
 * indexed already, so even an instant callback finds it) and links the custody operation id.
 * If the request fails, the withdrawal ends FAILED and its reservations are returned; if the
 * withdrawal ended meanwhile, the sign operation the request made is canceled.
 */
export async function requestSignature(deps: WithdrawalDeps, adaptor: LedgerAdaptor, op: Operation, unsigned: UnsignedWithdrawal): Promise<Operation> {
  const callbackUrl = deps.config.publicUrl ? signCallbackUrl(deps.config.publicUrl, adaptor.ledgerId) : undefined;
  try {
    const { operationID } = await deps.custody.requestSign(op.vaultId, {
      description: op.request.description,
      dataToSign: unsigned.payloads.map((p) => p.digest),
      publicKeys: unsigned.payloads.map((p) => p.keyId),
      rawTransactions: unsigned.payloads.map((p) => p.preimage ?? ''),
      ledgerHashAlgorithm: unsigned.payloads[0]?.hashAlgorithm ?? 'NONE',
      ledger: adaptor.ledgerId.toUpperCase(),
      // A hint only: the receiver matches callbacks by the digests stored above.
      providerData: JSON.stringify({ reference: op.id, request: op.request, txs: unsigned.txs }),
      ...(callbackUrl ? { callbackUrl } : {}),
    });
    const linked = await deps.store.linkCustodyId(op, operationID);
    if (linked.status === 'FAILED') await cancelLateSignOperation(deps, linked, operationID);
    return linked;
  } catch (e) {
    await failOperation(deps, op, `the custody service did not accept the sign request: ${(e as Error).message}`, ['EXECUTING']);
    throw e;
  }
}
