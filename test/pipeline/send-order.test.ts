import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
import { broadcastJobId } from '../../src/withdrawals/jobs/queues.js';
import {
  type BroadcastCounter,
  type EthLoop,
  holdBackSignatures,
  laterSignedFirst,
  RECIPIENT,
  startEthLoop,
  until,
  withdraw,
  withdrawalStatus,
} from './support.js';

/**
 * Sending in order, on Hardhat in its automining mode, which refuses a nonce that leaves a gap:
 * a withdrawal signed before its predecessor waits for it instead of failing, and a predecessor
 * that never gets signed frees its nonce, which the next withdrawal takes (the gap rule).
 */
describe('sending in order (Hardhat, refuses nonce gaps)', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let counter: BroadcastCounter;
  let ctx: EthLoop;
  // Sign operations the custody service reports as still PENDING (support.ts).
  let unsigned: Set<string>;

  beforeAll(async () => {
    ctx = await startEthLoop({ node: 'hardhat', env: { RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1', SIGN_TIMEOUT_SECONDS: '6' } });
    ({ chain, loop, p, counter } = ctx);
    unsigned = holdBackSignatures(loop);
  });
  afterAll(() => ctx?.stop());

  const status = (vaultId: string, operationID: string) => withdrawalStatus(loop, vaultId, operationID);

  it('a withdrawal signed before its predecessor waits SIGNED, sends nothing, and goes out right after it', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    // Counted from before either withdrawal exists: a send as soon as the second is signed counts.
    const callsBefore = counter.calls;
    const { first, second, waiting: signed, release } = await laterSignedFirst(loop, unsigned, v.vaultId, ['signed late', 'signed early']);
    // The moment it would have gone out: its broadcast job ran and went to sleep waiting for nonce 0.
    const { store, queues } = loop.svc.pipeline!.deps;
    const jobId = broadcastJobId((await store.resolve(second.body.operationID))!.id);
    await until('the broadcast job of the early one to run and wait', async () => {
      const job = await queues.broadcast.getJob(jobId);
      return job !== undefined && job.attemptsStarted >= 1 && (await job.getState()) === 'delayed';
    });
    // Never handed to the node (which would refuse it), never failed.
    expect((await status(v.vaultId, second.body.operationID)).status).toBe('SIGNED');
    expect(counter.calls).toBe(callsBefore);
    expect(counter.sent).not.toContain(signed.txids[0]);
    expect(await p.getTransactionCount(v.address, 'pending')).toBe(0);

    expect(await release()).toBe(200);
    const [a, b] = await Promise.all([first, second].map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED', 30_000)));
    expect((await p.getTransaction(a.txids[0]))!.nonce).toBe(0);
    expect((await p.getTransaction(b.txids[0]))!.nonce).toBe(1);
  });

  it('a predecessor never signed frees its nonce; the next withdrawal fills it and the waiting one follows', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    {
      const { first: stalled, second: waiting } = await laterSignedFirst(loop, unsigned, v.vaultId, ['never signed', 'waits for nonce 0']);

      const failed = await loop.waitFor(v.vaultId, stalled.body.operationID, (o) => o.status === 'FAILED', 20_000);
      expect(failed.failureReason).toMatch(/not signed within 6 s/);
      expect((await status(v.vaultId, waiting.body.operationID)).status).toBe('SIGNED');

      const refill = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.03', description: 'takes nonce 0' });
      const [r, w] = await Promise.all([refill, waiting].map((x) => loop.waitFor(v.vaultId, x.body.operationID, (o) => o.status === 'CONFIRMED', 30_000)));
      expect((await p.getTransaction(r.txids[0]))!.nonce).toBe(0);
      expect((await p.getTransaction(w.txids[0]))!.nonce).toBe(1);
      expect(await p.getTransactionCount(v.address, 'latest')).toBe(2);
    }
  });
});
