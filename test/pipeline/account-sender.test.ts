import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendOrderBook } from '../../src/pipeline/send-order.js';
import { broadcastJobId } from '../../src/pipeline/queues.js';
import type { TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
import { type BroadcastCounter, type EthLoop, holdBackSignatures, laterSignedFirst, RECIPIENT, startEthLoop, until, withdraw, withdrawalStatus } from './support.js';

/**
 * One sender per account (src/pipeline/account-sender.ts), on anvil with the service's own
 * workers: the job holding the account's send lock sends the transactions other jobs made
 * ready, each once; a job that finds the lock taken sends nothing until the lock is free.
 */
describe('one sender per account', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let counter: BroadcastCounter;
  let ctx: EthLoop;
  let unsigned: Set<string>;

  beforeAll(async () => {
    ctx = await startEthLoop();
    ({ chain, loop, p, counter } = ctx);
    unsigned = holdBackSignatures(loop);
  });
  afterAll(() => ctx?.stop());

  const status = (vaultId: string, operationID: string) => withdrawalStatus(loop, vaultId, operationID);
  const jobOf = async (operationID: string) => {
    const op = (await loop.svc.pipeline!.deps.store.resolve(operationID))!;
    return (await loop.svc.pipeline!.deps.queues.broadcast.getJob(broadcastJobId(op.id)))!;
  };

  it('the job that sends nonce 0 sends the waiting nonce 1 too, once, and the waiting job then finishes without sending', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const { first, second, waiting, release } = await laterSignedFirst(loop, unsigned, v.vaultId, ['nonce 0, signed late', 'nonce 1, waits']);
    // Its job looked, found nonce 0 missing, and sleeps (its first look again is 10 s away).
    await until('the waiting job to sleep', async () => (await (await jobOf(second.body.operationID)).isDelayed()) || undefined);
    const before = counter.calls;

    const resent = Date.now();
    expect(await release()).toBe(200);
    const [a, b] = await Promise.all([first, second].map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED', 30_000)));
    // Both went out long before the waiting job's own look: the first job sent them, in order, once each.
    expect(Date.now() - resent).toBeLessThan(8_000);
    expect(counter.calls - before).toBe(2);
    expect(counter.sent.slice(-2)).toEqual([a.txids[0], b.txids[0]]);
    expect(b.txids).toEqual(waiting.txids);
    expect((await p.getTransaction(b.txids[0]))!.nonce).toBe(1);
    const firstJobId = (await jobOf(first.body.operationID)).id;
    const logs = (await loop.svc.pipeline!.deps.queues.broadcast.getJobLogs(broadcastJobId((await loop.svc.pipeline!.deps.store.resolve(second.body.operationID))!.id))).logs;
    expect(logs.join('\n')).toContain(`sent ${b.txids[0]} by job ${firstJobId}`);
    // Its wait reads as one, not as a failed attempt.
    expect(logs.some((l) => / waits: waiting for 0x[0-9a-fA-F]{40}'s transaction 0, which is not out yet/.test(l))).toBe(true);
    expect(logs.join('\n')).not.toContain('ended with an error');

    // The waiting job wakes, finds its withdrawal sent, and finishes without a send of its own.
    const job = await jobOf(second.body.operationID);
    await job.promote();
    await until('the waiting job to finish', async () => ((await job.getState()) === 'completed' ? true : undefined));
    expect(counter.calls - before).toBe(2);
  });

  it('20 withdrawals at once from one vault: 20 sends, none twice, nonces 0..19', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const before = counter.sent.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: `0.00${i + 10}`, description: `burst ${i}` })),
    );
    const done = await Promise.all(results.map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 60_000)));
    expect(done.map((o) => o.status)).toEqual(done.map(() => 'CONFIRMED'));
    const ours = new Set(done.map((o) => o.txids[0] as string));
    const sends = counter.sent.slice(before).filter((t) => ours.has(t));
    expect(sends).toHaveLength(20);
    expect(new Set(sends).size).toBe(20);
    const nonces = await Promise.all(done.map(async (o) => (await p.getTransaction(o.txids[0]))!.nonce));
    expect(nonces.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('a withdrawal whose account lock is held by a holder that died waits, sends nothing, and goes out once the lock expired', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    // What a worker killed while sending leaves: the account's lock under a token nobody renews.
    const { redis, prefix } = loop.svc.core;
    const book = new SendOrderBook(redis, prefix);
    expect((await book.readyAndTryLock('ethdev', v.address, 1_000n, 'ghost', 'dead-holder')).locked).toBe(true);
    await book.forget('ethdev', v.address, 1_000n, 'ghost');
    const before = counter.calls;
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'after a dead holder' });
    await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'SIGNED');
    await until('its job to sleep', async () => (await (await jobOf(res.body.operationID)).isDelayed()) || undefined);
    expect(counter.calls).toBe(before);
    expect((await status(v.vaultId, res.body.operationID)).status).toBe('SIGNED');
    // The lock expires (LOCK_MS); the job's next look takes it and sends.
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED', 30_000);
    expect(counter.calls - before).toBe(1);
    expect((await p.getTransaction(done.txids[0]))!.nonce).toBe(0);
  });
});
