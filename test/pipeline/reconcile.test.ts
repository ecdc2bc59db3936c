import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
import { type BroadcastCounter, type EthLoop, postCallback, RECIPIENT, signedCallbackBody, startEthLoop, until, withdraw } from './support.js';

/**
 * Reconciliation (RECONCILE_AFTER_SECONDS=1, every second): a lost callback is recovered from
 * the custody service's record; a sign request that never reached the custody service ends
 * FAILED with its reason and gives its nonce back (and should it arrive late after all, the
 * sign operation it made is canceled).
 */
describe('reconciliation of withdrawals without a callback', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let counter: BroadcastCounter;
  let ctx: EthLoop;

  beforeAll(async () => {
    ctx = await startEthLoop({ env: { RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' } });
    ({ chain, loop, p, counter } = ctx);
  });
  afterAll(() => ctx?.stop());

  it('a dropped callback is recovered from the custody operation and confirmed once', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const before = counter.calls;
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'callback lost' });
    expect(res.status).toBe(200);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    // The custody never delivered anything: the signatures came through reconciliation.
    expect(loop.custody.control.operation(res.body.operationID)!.deliveries).toEqual([{ delivered: 0, failed: 0, dropped: true }]);
    expect(counter.calls - before).toBe(1);
    expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);
    // A callback that turns up after all is a duplicate.
    const late = await postCallback(loop.svc, 'ethdev', signedCallbackBody(loop, res.body.operationID));
    expect(late.body).toMatchObject({ accepted: true, outcome: 'duplicate' });
    expect(counter.calls - before).toBe(1);
  });

  it('a completed custody operation whose lookup carries no signatures is asked to resend its callback', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const custody = loop.svc.pipeline!.deps.custody;
    const realLookup = custody.getSignOperation.bind(custody);
    custody.getSignOperation = async (id) => ({ ...(await realLookup(id)), signatures: [], v: [] });
    try {
      const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'lookup without signatures' });
      await until('the custody to sign', () => loop.custody.control.operation(res.body.operationID)?.status === 'COMPLETED');
      loop.custody.control.setFaults({}, v.vaultId);
      const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
      expect(done.status, done.failureReason).toBe('CONFIRMED');
      // The signatures arrived by a callback the reconciliation asked for.
      expect(loop.custody.control.operation(res.body.operationID)!.deliveries.some((d) => d.delivered > 0)).toBe(true);
    } finally {
      custody.getSignOperation = realLookup;
    }
  });

  it('a sign request that never reached the custody service ends FAILED with its reason; its nonce is reused; arriving late, its sign operation is canceled', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    const custody = loop.svc.pipeline!.deps.custody;
    const realRequestSign = custody.requestSign.bind(custody);
    // The API process dies between storing the operation and the sign request: here the
    // request simply never goes out until the test lets it (to see what a late one does).
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    custody.requestSign = async (...args: Parameters<typeof realRequestSign>) => {
      await held;
      return realRequestSign(...args);
    };
    const stuck = withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'never signed' });
    const store = loop.svc.pipeline!.deps.store;
    const pending = await until('the stored operation', async () => (await store.listForVault(v.vaultId, 0, 10)).items[0]);
    expect(pending.status).toBe('EXECUTING');
    expect(pending.operationID).toBeUndefined();
    const firstNonce = (pending.unsigned.state as { nonce: string }).nonce;

    const failed = await until('reconciliation to fail it', async () => {
      const op = await store.find(pending.id);
      return op?.status === 'FAILED' ? op : undefined;
    });
    expect(failed.failureReason).toBe('the sign request never reached the custody service');
    expect(failed.history.map((h) => h.status)).toEqual(['EXECUTING', 'FAILED']);
    custody.requestSign = realRequestSign;

    // The nonce came back: the next withdrawal uses it and confirms.
    const next = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.02', description: 'after the failure' });
    expect(next.status).toBe(200);
    const nextOp = await store.resolve(next.body.operationID);
    expect((nextOp!.unsigned.state as { nonce: string }).nonce).toBe(firstNonce);
    const done = await loop.waitFor(v.vaultId, next.body.operationID, (o) => o.status === 'CONFIRMED');
    expect((await p.getTransaction(done.txids[0]))!.nonce).toBe(Number(firstNonce));

    // The held sign request goes out late, while the approvers take their time: the withdrawal
    // is FAILED, so the sign operation it made is canceled at the custody service at once.
    // Nobody is asked to sign it, and its transaction is never broadcast.
    loop.custody.control.setFaults({ holdApprovals: true }, v.vaultId);
    const before = counter.calls;
    letGo();
    const late = await stuck;
    expect(late.body.status).toBe('FAILED');
    expect(loop.custody.control.operation(late.body.operationID)!.status).toBe('CANCELED');
    expect(counter.calls).toBe(before);
    expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);
  });
});
