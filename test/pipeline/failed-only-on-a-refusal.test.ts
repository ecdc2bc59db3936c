import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processBroadcast } from '../../src/withdrawals/jobs/broadcast-job.js';
import type { PipelineDeps } from '../../src/withdrawals/pipeline-deps.js';
import { broadcastJobId } from '../../src/withdrawals/jobs/queues.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { only, rpcProxy, type RpcProxy } from './rpc-proxy.js';
import { provider, RECIPIENT, until, withdraw } from './support.js';

/**
 * A withdrawal ends FAILED on a node's answer only when that answer proves its signed bytes can
 * never be valid (here geth's bad signature; a refusal that proves nothing holds it open, see
 * refused-held-open.test.ts) and the withdrawal is still SIGNED, with nothing of it sent since: a
 * lookup that fails is asked again, a refusal leaves the account's book before the next sender
 * comes, and an answer older than a send the node took decides nothing.
 */
describe('FAILED only on a refusal of a withdrawal not sent since', () => {
  let chain: TestChain;
  let loop: Loop;
  let proxy: RpcProxy;
  let p: JsonRpcProvider;
  let deps: PipelineDeps;

  beforeAll(async () => {
    chain = await startTestChain();
    proxy = await rpcProxy(chain.anvil.url);
    loop = await startLoop({ ethdev: { rpcUrl: proxy.url, confirmations: 1 } });
    p = provider(chain.anvil.url);
    deps = loop.svc.pipeline!.deps;
  });
  afterAll(async () => {
    p?.destroy();
    await loop?.stop();
    await proxy?.close();
    await chain?.stop();
  });

  const fundedVault = async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    return v;
  };
  const settled = (vaultId: string, operationID: string) =>
    loop.waitFor(vaultId, operationID, (o) => o.status === 'FAILED' || o.status === 'CONFIRMED', 30_000);
  const internalId = async (operationID: string) => (await deps.store.resolve(operationID))!.id;
  /** The account's send lock as the next release of it finds things: `inWindow` runs just after it was given back, before the job that held it goes on. */
  const afterNextRelease = (inWindow: () => Promise<void>) => {
    const book = deps.sendOrder;
    const release = book.release.bind(book);
    book.release = async (...args) => {
      book.release = release;
      await release(...args);
      await inWindow();
    };
  };
  const refuseNextSend = () => {
    let refused = false;
    proxy.fault = (calls) => {
      if (refused || !only(calls, 'eth_sendRawTransaction')) return undefined;
      refused = true;
      return { error: { code: -32000, message: 'invalid sender: invalid transaction v, r, s values' } };
    };
  };

  it('a send whose answer was lost, retried while the node cannot look its transaction up, is not FAILED: it ends CONFIRMED', async () => {
    const v = await fundedVault();
    let lost = false;
    let lookupsFailed = 0;
    proxy.fault = (calls) => {
      if (!lost && only(calls, 'eth_sendRawTransaction')) {
        lost = true;
        return 'lose-answer';
      }
      // The resend gets "nonce too low" (the first one is mined); the node then cannot tell whether it is ours.
      if (lost && lookupsFailed < 1 && only(calls, 'eth_getTransactionByHash')) {
        lookupsFailed++;
        return { error: { code: -32000, message: 'transaction indexing is in progress' } };
      }
      return undefined;
    };
    const w = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'answer lost, lookup fails' });
    expect(w.status).toBe(200);
    const done = await settled(v.vaultId, w.body.operationID);
    expect(lookupsFailed).toBe(1);
    expect({ status: done.status, failureReason: done.failureReason }).toEqual({ status: 'CONFIRMED', failureReason: undefined });
    expect((await p.getTransactionReceipt(done.txids[0]))!.status).toBe(1);
  });

  it('a refusal that proves the bytes invalid leaves the book before the lock is free: the next sender of the account does not send it, and it ends FAILED with nothing on the chain', async () => {
    const v = await fundedVault();
    refuseNextSend();
    let second: { body: { operationID: string } } | undefined;
    afterNextRelease(async () => {
      // The account's next withdrawal takes the lock now and sends what it finds ready from nonce 0 on.
      second = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.02', description: 'nonce 1, takes the lock next' });
      const id = await until('the second withdrawal', async () => (await deps.store.resolve(second!.body.operationID))?.id);
      await until('its job to send or to wait', async () => {
        if ((await deps.store.get(id)).status === 'BROADCAST') return true;
        return (await (await deps.queues.broadcast.getJob(broadcastJobId(id)))?.isDelayed()) || undefined;
      });
    });
    const w = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'nonce 0, refused' });
    const done = await settled(v.vaultId, w.body.operationID);
    expect(second).toBeDefined();
    expect({ status: done.status, failureReason: done.failureReason }).toEqual({
      status: 'FAILED',
      failureReason: expect.stringContaining('invalid transaction v, r, s values'),
    });
    expect(await p.getTransaction(done.txids[0])).toBeNull();
    expect((await deps.store.resolve(second!.body.operationID))!.status).toBe('SIGNED');
  });

  it('a refusal older than a send of the same bytes that the node took (another run of the job) does not end the withdrawal FAILED: it ends CONFIRMED', async () => {
    const v = await fundedVault();
    refuseNextSend();
    const w = withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'refused once, then sent by another run' });
    const id = w.then((r) => internalId(r.body.operationID));
    let other: string | undefined;
    // Another worker runs the same job (a stalled job taken over) once the lock is free, before the refusing run fails it.
    afterNextRelease(async () => {
      other = await processBroadcast(deps, await id);
    });
    const done = await settled(v.vaultId, (await w).body.operationID);
    expect(other).toBe('broadcast');
    expect({ status: done.status, failureReason: done.failureReason }).toEqual({ status: 'CONFIRMED', failureReason: undefined });
    expect((await p.getTransactionReceipt(done.txids[0]))!.status).toBe(1);
  });
});
