import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import type { TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
import { type BroadcastCounter, type EthLoop, RECIPIENT, startEthLoop, type SwitchableProxy, until, withdraw } from './support.js';

/**
 * The service reaches its Ethereum node through a TCP proxy the test switches off and on: the
 * node going down at broadcast (or while confirmations are tracked) and coming back. The
 * broadcast is retried with backoff and the withdrawal confirms once, with one transaction.
 */
describe('ledger node down during the signing loop', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let counter: BroadcastCounter;
  let node: SwitchableProxy;
  let ctx: EthLoop;

  beforeAll(async () => {
    ctx = await startEthLoop({ proxied: true, extraLedgers: (rpcUrl) => ({ slowdev: { family: 'ethereum', chainId: 31337, rpcUrl, confirmations: 2 } }) });
    ({ chain, loop, p, counter } = ctx);
    node = ctx.node as SwitchableProxy;
  });
  afterAll(() => ctx?.stop());

  it('node down when the signatures arrive: the broadcast is retried and confirms once the node is back', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    // The custody holds the callback back until the node is off, then resends it.
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'node down' });
    expect(res.status).toBe(200);
    await until('the custody to sign', () => loop.custody.control.operation(res.body.operationID)?.deliveries.length === 1);
    node.off();
    try {
      loop.custody.control.setFaults({}, v.vaultId);
      expect((await fetch(`${loop.custody.url}/operations/sign/${res.body.operationID}/resend`, { method: 'POST' })).status).toBe(200);
      // Two failed attempts: the first and one backoff retry.
      await until('two failed broadcast attempts', () => counter.failures >= 2, 15_000);
      const during = await loop.waitFor(v.vaultId, res.body.operationID, () => true);
      expect(during.status).toBe('SIGNED');
      expect(during.txids).toHaveLength(1);
      expect(await p.getTransactionCount(v.address, 'latest')).toBe(0);
      expect(counter.sent).toEqual([]);
    } finally {
      node.on();
    }
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 20_000);
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect(done.history.map((h: { status: string }) => h.status)).toEqual(['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED']);
    expect(counter.calls).toBe(counter.failures + 1);
    expect(counter.sent).toEqual(done.txids);
    expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);
  });

  it('node down while confirmations are tracked: stays BROADCAST, then confirms', async () => {
    const adaptor = loop.svc.core.registry.get('slowdev') as LedgerAdaptor & { txStatus: LedgerAdaptor['txStatus'] };
    const realStatus = adaptor.txStatus;
    const checks = { ok: 0, failed: 0 };
    adaptor.txStatus = async (...args) => {
      try {
        const r = await realStatus(...args);
        checks.ok++;
        return r;
      } catch (e) {
        checks.failed++;
        throw e;
      }
    };
    try {
      const v = await loop.vault('slowdev');
      await chain.funder.sendEth(v.address, 10n ** 17n);
      const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'node down later' });
      await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST' && o.confirmations === 1);
      node.off();
      try {
        await until('a failed confirmation check', () => checks.failed >= 1, 10_000);
        await chain.funder.sendEth(RECIPIENT, 1n); // a block the service cannot see yet
        expect((await loop.waitFor(v.vaultId, res.body.operationID, () => true)).status).toBe('BROADCAST');
      } finally {
        node.on();
      }
      const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 20_000);
      expect(done.status, done.failureReason).toBe('CONFIRMED');
      expect(done.confirmations).toBeGreaterThanOrEqual(2);
      expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);
    } finally {
      adaptor.txStatus = realStatus;
    }
  });

  it('node down when a withdrawal is asked for: 503 with Retry-After, nothing stored or reserved', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    node.off();
    try {
      const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'no node' });
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(res.body).toMatchObject({ errCode: expect.any(String), title: expect.any(String), details: expect.any(String) });
    } finally {
      node.on();
    }
    expect((await loop.svc.pipeline!.deps.store.listForVault(v.vaultId, 0, 10)).total).toBe(0);
    const ok = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'node back' });
    const done = await loop.waitFor(v.vaultId, ok.body.operationID, (o) => o.status === 'CONFIRMED');
    expect((await p.getTransaction(done.txids[0]))!.nonce).toBe(0);
  });
});
