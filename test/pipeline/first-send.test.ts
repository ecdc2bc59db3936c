import { afterAll, describe, expect, it } from 'vitest';
import { LedgerRegistry } from '../../src/ledger/registry.js';
import type { BroadcastContext, SignedTx } from '../../src/ledger/adaptor.js';
import type { Operation } from '../../src/withdrawals/model/operation.js';
import type { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { processBroadcast } from '../../src/withdrawals/jobs/broadcast-job.js';
import { fakeAdaptor, harness, key, operation, payload } from '../helpers/operation-kit.js';

/**
 * The broadcast job tells the adaptor when no node can have its bytes yet: it assembled them in
 * this run and its own move to SIGNED won. A run that finds them assembled (a retry, a job
 * taken over after a crash) or loses that move to another run says nothing, and the adaptor
 * looks its transaction up before sending it again.
 */
describe('the broadcast job says when a send is the first', () => {
  const h = harness();
  afterAll(() => h.cleanup());
  const SIGNED_TX: SignedTx = { txIndex: 0, serialized: '02aa', txid: 'aa' };

  /** Deps whose adaptor records each broadcast's context; `store` stands for the kit's store. */
  function depsWith(contexts: (BroadcastContext | undefined)[], store: OperationStore = h.store) {
    const adaptor = {
      ...fakeAdaptor(h.released),
      combine: () => [SIGNED_TX],
      broadcast: async (_tx: SignedTx, context?: BroadcastContext) => {
        contexts.push(context);
        return { txid: 'aa', alreadyKnown: false };
      },
    };
    return {
      store,
      queues: h.queues,
      registry: new LedgerRegistry([adaptor as never]),
      logger: h.logger,
      config: { confirmPollMs: 1000 },
    } as never;
  }

  /** An EXECUTING withdrawal whose one signature is in, as the callback leaves it. */
  async function signedByQuorum(): Promise<Operation> {
    const op = operation([payload(key(), 0)], { operationID: `first-send-${Math.random()}` });
    await h.store.create(op);
    await h.store.addSignatures(op.id, new Map([[0, { signature: 'ab'.repeat(64), recoveryId: 0 }]]));
    return op;
  }

  it('assembled and moved to SIGNED by this run: a first send', async () => {
    const op = await signedByQuorum();
    const contexts: (BroadcastContext | undefined)[] = [];
    await expect(processBroadcast(depsWith(contexts), op.id)).resolves.toBe('broadcast');
    expect(contexts).toEqual([{ firstSend: true }]);
    expect((await h.store.get(op.id)).status).toBe('BROADCAST');
  });

  it('found assembled by an earlier run: not a first send', async () => {
    const op = await signedByQuorum();
    await h.store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['aa'], signedTxs: ['02aa'], broadcastAttempted: true }));
    const contexts: (BroadcastContext | undefined)[] = [];
    await expect(processBroadcast(depsWith(contexts), op.id)).resolves.toBe('broadcast');
    expect(contexts).toEqual([{ firstSend: false }]);
  });

  it('another run moved it to SIGNED while this one assembled: not a first send', async () => {
    const op = await signedByQuorum();
    const contexts: (BroadcastContext | undefined)[] = [];
    // The other run's move lands just before this run's own.
    const store = Object.create(h.store) as OperationStore;
    store.transition = async (...args: Parameters<OperationStore['transition']>) => {
      store.transition = h.store.transition.bind(h.store);
      await h.store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['aa'], signedTxs: ['02aa'], broadcastAttempted: true }));
      return h.store.transition(...args);
    };
    await expect(processBroadcast(depsWith(contexts, store), op.id)).resolves.toBe('broadcast');
    expect(contexts).toEqual([{ firstSend: false }]);
  });
});
