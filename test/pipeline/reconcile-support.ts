/**
 * Reconciliation on its own: the operation kit's real store, fake ledger and queues, and a
 * custody service whose answers the test writes.
 */
import type { SignOperation } from '../../src/custody/types.js';
import type { SigningPayload } from '../../src/ledger/adaptor.js';
import type { Operation } from '../../src/withdrawals/model/operation.js';
import type { PipelineDeps } from '../../src/withdrawals/pipeline-deps.js';
import { harness, operation, sign, type Key } from '../helpers/operation-kit.js';

/** An EXECUTING withdrawal created at `createdAt`, its sign request at the custody service as `operationID`. */
export function waitingOperation(payloads: SigningPayload[], operationID: string, createdAt: Date): Operation {
  return operation(payloads, { operationID }, createdAt.toISOString());
}

/** A sign operation as the custody service reports it; `signed` adds the key's signatures of the payloads. */
export function signOperation(operationID: string, status: string, signed?: { payloads: SigningPayload[]; key: Key }): SignOperation {
  const sigs = signed?.payloads.map((p) => sign(signed.key, p.digest)) ?? [];
  return {
    operationID,
    status,
    isApproved: status === 'COMPLETED',
    dataToSign: signed?.payloads.map((p) => p.digest) ?? [],
    publicKeys: signed ? [signed.key.keyId] : [],
    signatures: sigs.map((s) => s.signature),
    v: sigs.map((s) => s.v),
  };
}

/**
 * The pipeline's dependencies around the kit's store. `custody.answer` is the custody service's
 * lookup (PENDING until a test says otherwise), `custody.cancel` its cancel; `lookups` records every one asked,
 * `cancels` every cancel asked for,
 * `custody.mostInFlight` the most asked at once, `resends` the callbacks asked for again.
 */
export function reconcileHarness() {
  const h = harness();
  const lookups: string[] = [];
  const resends: string[] = [];
  const cancels: string[] = [];
  const custody = {
    answer: async (id: string): Promise<SignOperation> => signOperation(id, 'PENDING'),
    /** The custody service's cancel: succeeds unless a test says otherwise. */
    cancel: async (_id: string): Promise<void> => {},
    inFlight: 0,
    mostInFlight: 0,
  };
  const deps = {
    store: h.store,
    registry: h.registry,
    logger: h.logger,
    queues: h.queues,
    custody: {
      getSignOperation: async (id: string) => {
        lookups.push(id);
        custody.mostInFlight = Math.max(custody.mostInFlight, ++custody.inFlight);
        try {
          return await custody.answer(id);
        } finally {
          custody.inFlight--;
        }
      },
      resend: async (id: string) => {
        resends.push(id);
      },
      cancelOperation: async (id: string) => {
        cancels.push(id);
        await custody.cancel(id);
      },
    },
    config: { reconcileAfterSeconds: 120, signTimeoutSeconds: 86_400, reconcileIntervalSeconds: 30 },
  } as unknown as PipelineDeps;
  return { ...h, deps, custody, lookups, resends, cancels };
}
