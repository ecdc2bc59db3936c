import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerAdaptor, TxStatus } from '../../src/ledger/adaptor.js';
import { attemptsOf } from '../../src/withdrawals/model/operation.js';
import { countBroadcasts, RECIPIENT, startEthLoop, withdraw, type EthLoop } from './support.js';

/**
 * A withdrawal ends FAILED on a conflict only when what took its nonce is not one of its own
 * transactions, proven at the ledger's depth. A speed-up or cancel may be added, sent and mined
 * while a look is under way (a dev chain mines at once; a fast chain nearly so): the look that
 * began before it must not call it foreign.
 */
describe('a conflict is judged against the attempts as they are when it is decided', () => {
  let eth: EthLoop;

  beforeAll(async () => {
    eth = await startEthLoop();
  });
  afterAll(async () => {
    await eth?.stop();
  });

  it('a speed-up added during the look that found the original lost to it: followed and CONFIRMED, not FAILED as a conflict', async () => {
    const { loop } = eth;
    const deps = loop.svc.pipeline!.deps;
    const adaptor = deps.registry.get('ethdev') as LedgerAdaptor;
    eth.counter.restore();
    // The node takes every send; what it holds is told by txStatus below.
    const sends = countBroadcasts(loop.svc, 'ethdev', async (_real, tx) => ({ txid: tx.txid, alreadyKnown: false }));
    const realStatus = adaptor.txStatus.bind(adaptor);
    const speedUp = `0x${randomBytes(32).toString('hex')}`;
    let original: string | undefined;
    let opId: string | undefined;
    adaptor.txStatus = async (txid, unsigned): Promise<TxStatus> => {
      if (!opId || (txid !== original && txid !== speedUp)) return realStatus(txid, unsigned);
      if (txid === speedUp) return { state: 'confirmed', confirmations: 1, blockHeight: 10 };
      // While the node is asked about the original, a speed-up of it is added, sent and mined.
      const op = await deps.store.get(opId);
      if (!attemptsOf(op).some((a) => a.txids.includes(speedUp))) {
        await deps.store.update(opId, (o) => ({
          ...o,
          attempts: [
            ...attemptsOf(o),
            { kind: 'speed-up', status: 'signing', txids: [speedUp], fee: '1', createdAt: new Date().toISOString(), unsigned: o.unsigned, signed: o.signedTxs },
          ],
        }));
      }
      return { state: 'failed', confirmations: 0, reason: `replaced: nonce 0 used by transaction ${speedUp}`, spentBy: speedUp, proofConfirmations: 5 };
    };
    try {
      const v = await loop.vault('ethdev');
      await eth.chain.funder.sendEth(v.address, 10n ** 18n);
      const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'sped up during a look' });
      expect(res.status).toBe(200);
      const sent = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST');
      original = sent.txids[0];
      opId = (await deps.store.resolve(res.body.operationID))!.id;
      const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
      expect({ status: done.status, failureReason: done.failureReason, txids: done.txids }).toEqual({
        status: 'CONFIRMED',
        failureReason: undefined,
        txids: [speedUp],
      });
    } finally {
      adaptor.txStatus = realStatus;
      sends.restore();
    }
  });
});
