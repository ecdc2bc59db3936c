import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
import { broadcastJobId } from '../../src/withdrawals/jobs/queues.js';
import { type BroadcastCounter, type EthLoop, RECIPIENT, startEthLoop, type SwitchableProxy, until, withdraw } from './support.js';

/**
 * The two ways a withdrawal can stall: the quorum never signs (it must end FAILED after
 * SIGN_TIMEOUT_SECONDS and free its nonce), and the node stays down longer than the broadcast
 * retries (it must not end FAILED, since the transaction may be on a node: reconciliation
 * starts the broadcast again until it goes through).
 */
describe('stalled withdrawals', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let counter: BroadcastCounter;
  let node: SwitchableProxy;
  let ctx: EthLoop;

  beforeAll(async () => {
    ctx = await startEthLoop({
      proxied: true,
      env: { BROADCAST_ATTEMPTS: '2', RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1', SIGN_TIMEOUT_SECONDS: '3' },
    });
    ({ chain, loop, p, counter } = ctx);
    node = ctx.node as SwitchableProxy;
  });
  afterAll(() => ctx?.stop());

  it('a withdrawal the quorum never signs ends FAILED after SIGN_TIMEOUT_SECONDS and its nonce is reused', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    // The quorum never approves: no callback, and the custody service reports the operation PENDING.
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const custody = loop.svc.pipeline!.deps.custody;
    const realLookup = custody.getSignOperation.bind(custody);
    const realCancel = custody.cancelOperation.bind(custody);
    custody.getSignOperation = async (id) => ({
      ...(await realLookup(id)),
      status: 'PENDING',
      statusText: undefined,
      isApproved: false,
      signatures: [],
      v: [],
    });
    // A custody service that takes the cancel the timeout sends, yet signed anyway: its late callback must still be refused.
    let canceled = '';
    custody.cancelOperation = async (id) => {
      canceled = id;
    };
    try {
      const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'never signed' });
      expect(res.status).toBe(200);
      const failed = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'FAILED', 15_000);
      expect(failed.failureReason).toBe('not signed within 3 s (SIGN_TIMEOUT_SECONDS); canceled at the custody service');
      expect(canceled).toBe(res.body.operationID);
      // A late callback for it is refused: nothing is broadcast for a FAILED withdrawal.
      loop.custody.control.setFaults({}, v.vaultId);
      const resent = loop.custody.control.operation(res.body.operationID)!.deliveries.length;
      expect((await fetch(`${loop.custody.url}/operations/sign/${res.body.operationID}/resend`, { method: 'POST' })).status).toBe(200);
      // The service has answered the resent callback: had it taken it, its broadcast job would be queued by now.
      await until('the resent callback answered', () => loop.custody.control.operation(res.body.operationID)!.deliveries[resent], 30_000);
      const op = (await loop.svc.pipeline!.deps.store.resolve(res.body.operationID))!;
      expect(await loop.svc.pipeline!.deps.queues.broadcast.getJob(broadcastJobId(op.id))).toBeUndefined();
      expect(counter.calls).toBe(0);
    } finally {
      custody.getSignOperation = realLookup;
      custody.cancelOperation = realCancel;
    }
    const next = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'after the timeout' });
    const done = await loop.waitFor(v.vaultId, next.body.operationID, (o) => o.status === 'CONFIRMED', 15_000);
    expect((await p.getTransaction(done.txids[0]))?.nonce).toBe(0);
  });

  it('a broadcast that runs out of attempts stays SIGNED and goes through once the node is back', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.02', description: 'long outage' });
    await until('the custody to sign', () => loop.custody.control.operation(res.body.operationID)?.status === 'COMPLETED');
    node.off();
    try {
      loop.custody.control.setFaults({}, v.vaultId);
      expect((await fetch(`${loop.custody.url}/operations/sign/${res.body.operationID}/resend`, { method: 'POST' })).status).toBe(200);
      // Judged on one read of the job: reconciliation starts a failed job again every second, so
      // a state asked for after the read can belong to a later run than the read's attempt count.
      const job = await until('the broadcast job to give up', async () => {
        const j = await loop.svc.pipeline!.deps.queues.broadcast.getJob(`broadcast-${(await loop.svc.pipeline!.deps.store.resolve(res.body.operationID))!.id}`);
        return j?.finishedOn !== undefined ? j : undefined;
      });
      expect(job.failedReason).toBeTruthy();
      expect(job.attemptsMade).toBe(2);
      const during = await loop.waitFor(v.vaultId, res.body.operationID, () => true);
      expect(during.status).toBe('SIGNED');
    } finally {
      node.on();
    }
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 20_000);
    expect(done.status).toBe('CONFIRMED');
    expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);
    expect(counter.sent.filter((t) => t === done.txids[0]).length).toBeGreaterThanOrEqual(1);
  });
});
