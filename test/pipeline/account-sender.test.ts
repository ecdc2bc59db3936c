import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethRejection } from '../../adaptors/ethereum/network/errors.js';
import type { LedgerAdaptor, SendOutcome } from '../../src/ledger/adaptor.js';
import { SendOrderBook } from '../../src/withdrawals/sending/send-order.js';
import { broadcastJobId } from '../../src/withdrawals/jobs/queues.js';
import type { TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
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
 * One sender per account (src/withdrawals/sending/account-sender.ts), on anvil with the service's own
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

    expect(await release()).toBe(200);
    const [a, b] = await Promise.all([first, second].map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED', 30_000)));
    // Both went out without waiting for the waiting job's own look: the first job sent them, in
    // order, once each (its log below names the job that sent nonce 1).
    expect(counter.calls - before).toBe(2);
    expect(counter.sent.slice(-2)).toEqual([a.txids[0], b.txids[0]]);
    expect(b.txids).toEqual(waiting.txids);
    expect((await p.getTransaction(b.txids[0]))!.nonce).toBe(1);
    const firstJobId = (await jobOf(first.body.operationID)).id;
    const logs = (
      await loop.svc.pipeline!.deps.queues.broadcast.getJobLogs(broadcastJobId((await loop.svc.pipeline!.deps.store.resolve(second.body.operationID))!.id))
    ).logs;
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
    const done = await Promise.all(
      results.map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 60_000)),
    );
    expect(done.map((o) => o.status)).toEqual(done.map(() => 'CONFIRMED'));
    const ours = new Set(done.map((o) => o.txids[0] as string));
    const sends = counter.sent.slice(before).filter((t) => ours.has(t));
    expect(sends).toHaveLength(20);
    expect(new Set(sends).size).toBe(20);
    const nonces = await Promise.all(done.map(async (o) => (await p.getTransaction(o.txids[0]))!.nonce));
    expect(nonces.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  /** A vault whose nonce 0 is signed late, and nonces 1..4 SIGNED behind it, waiting. */
  const fourBehindALateOne = async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const { first, second, release } = await laterSignedFirst(loop, unsigned, v.vaultId, ['nonce 0, signed late', 'nonce 1, waits']);
    // One after another: a withdrawal's nonce is taken as its POST arrives, so `ids` is in nonce order.
    const more = [];
    for (const n of [2, 3, 4])
      more.push(await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: `0.0${n}`, description: `nonce ${n}, waits` }));
    const ids = [first, second, ...more].map((r) => r.body.operationID as string);
    await Promise.all(ids.slice(1).map((id) => loop.waitFor(v.vaultId, id, (o) => o.status === 'SIGNED')));
    // SIGNED comes before a job records its withdrawal ready for the account's sender: wait until
    // each sleeps behind its predecessor, so all four are ready when the late one is released.
    await Promise.all(
      ids.slice(1).map((id) => until(`the job of ${id} to wait for its predecessor`, async () => (await (await jobOf(id)).isDelayed()) || undefined)),
    );
    return { v, ids, release };
  };

  it('the withdrawals ready behind a late one go to the node together: one batch, in nonce order, each once', async () => {
    const { v, ids, release } = await fourBehindALateOne();
    const [sentBefore, batchesBefore] = [counter.sent.length, counter.batches.length];
    expect(await release()).toBe(200);
    const done = await Promise.all(ids.map((id) => loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED', 30_000)));
    const txids = done.map((o) => o.txids[0] as string);
    // The late one's job sent all five in one broadcastMany: the node got them in one round trip, in order.
    expect(counter.batches.slice(batchesBefore)).toEqual([5]);
    expect(counter.sent.slice(sentBefore)).toEqual(txids);
    expect(await Promise.all(txids.map(async (t) => (await p.getTransaction(t))!.nonce))).toEqual([0, 1, 2, 3, 4]);
  });

  it('a refusal inside a batch holds back none of those the node took: they are BROADCAST, and the refused one goes out on its own', async () => {
    const { v, ids, release } = await fourBehindALateOne();
    const adaptor = loop.svc.core.registry.get('ethdev') as LedgerAdaptor;
    const counted = adaptor.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>;
    const refusedId = (await loop.svc.pipeline!.deps.store.resolve(ids[2] as string))!.txids[0] as string;
    // The node refuses nonce 2 the first time (its pool is full) and takes the others of the batch.
    let refusals = 0;
    adaptor.broadcastMany = async (txs) => {
      const i = txs.findIndex((t) => t.txid === refusedId);
      if (i < 0 || refusals > 0) return counted(txs);
      refusals++;
      const rest = [...txs.slice(0, i), ...txs.slice(i + 1)];
      const answers = await counted(rest);
      const refusal: SendOutcome = { ok: false, error: ethRejection('txpool is full', -32000, 'test node') };
      return [...answers.slice(0, i), refusal, ...answers.slice(i)];
    };
    try {
      const sentBefore = counter.sent.length;
      expect(await release()).toBe(200);
      // Nonces 3 and 4 are in the node ahead of 2: BROADCAST while 2 waits for its own job.
      await Promise.all(
        [0, 1, 3, 4].map((k) => loop.waitFor(v.vaultId, ids[k] as string, (o) => o.status === 'BROADCAST' || o.status === 'CONFIRMED', 30_000)),
      );
      const done = await Promise.all(ids.map((id) => loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED', 60_000)));
      expect(refusals).toBe(1);
      const txids = done.map((o) => o.txids[0] as string);
      // Each went to the node once, the refused one last, on its own, sent again by its own job.
      expect(counter.sent.slice(sentBefore)).toEqual([txids[0], txids[1], txids[3], txids[4], txids[2]]);
      expect(await Promise.all(txids.map(async (t) => (await p.getTransaction(t))!.nonce))).toEqual([0, 1, 2, 3, 4]);
    } finally {
      adaptor.broadcastMany = counted;
    }
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
