import { attemptsOf, isFinal, type Operation, renderAttempt } from './operation.js';

/**
 * A withdrawal as clients see it: the answer of the withdrawal routes, and the `withdrawal`
 * of every webhook event. One rendering, so an event never shows a withdrawal differently
 * from the API.
 */
export function withdrawalSummary(op: Operation) {
  const operationID = op.operationID ?? op.id;
  return {
    // The spec's sample answer names it `id`; `operationID` is the same value.
    id: operationID,
    operationID,
    status: op.status,
    isComplete: isFinal(op),
    description: op.request.description,
    ...(op.request.recipientVault ? { recipientVault: op.request.recipientVault } : {}),
    appData: { request: op.request, txs: op.unsigned.txs },
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
    ...(op.stuck ? { stuck: op.stuck } : {}),
    attempts: attemptsOf(op).map(renderAttempt),
    history: op.history,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
  };
}

export type WithdrawalView = ReturnType<typeof withdrawalView>;
