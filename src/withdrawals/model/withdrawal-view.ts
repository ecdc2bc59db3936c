import { attemptsOf, isFinal, type Operation, renderAttempt } from './operation.js';

/**
 * A withdrawal as clients see it: the answer of the withdrawal routes, and the `withdrawal`
 * of every webhook event. One rendering, so an event never shows a withdrawal differently
 * from the API.
 */
export function withdrawalSummary(op: Operation) {
  return {
    // The service's own id: fixed at creation, the same in every answer, event, log line and job.
    withdrawalId: op.id,
    // The custody operation id, once the custody service accepted the sign request; absent before
    // (never the service's own id). The spec's sample answer names it `id`; `operationID` is the same value.
    ...(op.operationID ? { id: op.operationID, operationID: op.operationID } : {}),
    status: op.status,
    isComplete: isFinal(op),
    description: op.request.description,
    ...(op.request.recipientVault ? { recipientVault: op.request.recipientVault } : {}),
    appData: { request: op.request, txs: op.unsigned.txs },
    ...(op.setup ? { setup: op.setup } : {}),
    ...(op.setupFor ? { setupFor: op.setupFor } : {}),
  };
}

/** The full status view (GET of one withdrawal, lists, events). */
export function withdrawalView(op: Operation) {
  return {
    ...withdrawalSummary(op),
    vaultId: op.vaultId,
    ledgerId: op.ledgerId,
    txids: op.txids,
    confirmations: op.confirmations,
    ...(op.failureReason ? { failureReason: op.failureReason } : {}),
    ...(op.refused ? { refused: op.refused } : {}),
    ...(op.stuck ? { stuck: op.stuck } : {}),
    attempts: attemptsOf(op).map(renderAttempt),
    history: op.history,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
  };
}

export type WithdrawalView = ReturnType<typeof withdrawalView>;
