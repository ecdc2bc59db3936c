import { type JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedOf } from '../../src/withdrawals/model/operation.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop } from '../helpers/loop.js';
import { rpcProxy, type RpcCall, type RpcProxy } from './rpc-proxy.js';
import { provider, withdraw } from './support.js';

/** Geth's txpool answer when the sender's balance, as that node sees it, does not cover the transaction. */
const GETH_NO_FUNDS = { code: -32000, message: 'insufficient funds for gas * price + value: balance 0, tx cost 1000000000000000, overshot 1000000000000000' };
/** Geth's answer to a signature from which no sender can be recovered. */
const GETH_BAD_SIGNATURE = { code: -32000, message: 'invalid sender: invalid transaction v, r, s values' };

/**
 * The node in front of the service refuses the first signed transaction it is sent, and that same
 * transaction every time again (a node that has not imported the vault's funding): `answer` for it,
 * everything else passed on. Returns the refused raw bytes once seen.
 */
function refuseFirstSend(proxy: RpcProxy, answer: { code: number; message: string }): { raw?: string; refusals: number } {
  const seen: { raw?: string; refusals: number } = { refusals: 0 };
  proxy.fault = (calls: RpcCall[]) => {
    const send = calls.find((c) => c.method === 'eth_sendRawTransaction');
    if (!send || calls.length !== 1) return undefined;
    const raw = (send.params as string[])[0] as string;
    seen.raw ??= raw;
    if (raw !== seen.raw) return undefined;
    seen.refusals++;
    return { error: answer };
  };
  return seen;
}

const with0x = (hex: string): string => (hex.startsWith('0x') ? hex : `0x${hex}`);
const nonceOf = (op: { unsigned: { state: unknown } }): number => Number((op.unsigned.state as { nonce: string }).nonce);

/**
 * A node's refusal that proves nothing about the signed bytes (here geth's "insufficient funds"
 * from a node that has not seen the vault's funding) never ends a withdrawal FAILED: the same
 * bytes may reach the chain from elsewhere (the unsigned transaction is in the API view). The
 * withdrawal stays BROADCAST with the `refused` mark and its nonce claimed; the integrator's retry
 * takes the next nonce; each CONFIRMED withdrawal pays the recipient once, and nothing pays twice
 * for one FAILED. Only bytes that can never be valid (a bad signature) end it FAILED at once.
 */
describe('a refusal that proves nothing holds the withdrawal open (Ethereum, anvil)', () => {
  let chain: TestChain;
  let p: JsonRpcProvider;

  beforeAll(async () => {
    chain = await startTestChain();
    p = provider(chain.anvil.url);
  });
  afterAll(async () => {
    p?.destroy();
    await chain?.stop();
  });

  /** A loop whose ledger talks to the chain through a proxy; `env` for the service. */
  async function loopBehindProxy(env: Record<string, string> = {}) {
    const proxy = await rpcProxy(chain.anvil.url);
    const loop = await startLoop({ ethdev: { rpcUrl: proxy.url, confirmations: 1 } }, { env });
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    return { proxy, loop, v, deps: loop.svc.pipeline!.deps, stop: async () => (await loop.stop(), await proxy.close()) };
  }

  it('refused with "insufficient funds": held open, shown refused; the same bytes sent from outside land; the retry takes the next nonce; paid once per CONFIRMED', async () => {
    const { proxy, loop, v, deps, stop } = await loopBehindProxy();
    try {
      const recipient = Wallet.createRandom().address;
      const refused = refuseFirstSend(proxy, GETH_NO_FUNDS);
      const a = await withdraw(loop.svc, v.vaultId, { recipientAddress: recipient, amount: '0.01', description: 'A, refused' });
      expect(a.status).toBe(200);
      const held = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.refused !== undefined);
      expect(held.status).toBe('BROADCAST');
      expect(held.refused).toMatchObject({
        answer: expect.stringContaining('insufficient funds for gas * price + value: balance 0'),
        errCode: 'ERR_INSUFFICIENT_FUNDS',
      });
      expect(held.attempts[0].refusals[0]).toMatchObject({ node: new URL(proxy.url).host, errCode: 'ERR_INSUFFICIENT_FUNDS' });
      expect(held.failureReason).toBeUndefined();

      // The integrator, seeing no success, retries with a second withdrawal B: it must not take A's nonce.
      // B waits in the account's order behind A, whose nonce the node has not taken yet.
      const b = await withdraw(loop.svc, v.vaultId, { recipientAddress: recipient, amount: '0.01', description: 'B, the retry' });
      expect(b.status).toBe(200);
      await loop.waitFor(v.vaultId, b.body.operationID, (o) => o.status === 'SIGNED' || o.status === 'BROADCAST');
      const [opA, opB] = [(await deps.store.resolve(a.body.operationID))!, (await deps.store.resolve(b.body.operationID))!];
      expect(nonceOf(opB)).toBe(nonceOf(opA) + 1);
      expect((await loop.waitFor(v.vaultId, a.body.operationID, () => true)).refused).toBeDefined();

      // The same signed bytes reach the chain from outside the service.
      const raw = with0x(signedOf(opA, 0)[0]!.serialized);
      expect(raw).toBe(refused.raw);
      await p.send('eth_sendRawTransaction', [raw]);

      const doneA = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
      // B's job looks at the account's order again (every 10 s at most) and finds A's nonce taken.
      const doneB = await loop.waitFor(v.vaultId, b.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 60_000);
      expect([doneA.status, doneB.status]).toEqual(['CONFIRMED', 'CONFIRMED']);
      expect(doneA.history.map((h: { status: string }) => h.status)).not.toContain('FAILED');
      expect(doneA.refused).toBeUndefined();
      expect(refused.refusals).toBeGreaterThanOrEqual(1);
      // Paid exactly once per CONFIRMED withdrawal.
      expect(await p.getBalance(recipient)).toBe(2n * 10n ** 16n);
    } finally {
      await stop();
    }
  });

  it('refused and never sent from elsewhere: its invalidation goes through the custody service; once the cancel lands it is FAILED naming the refusal, and nobody was paid', async () => {
    const { proxy, loop, v, deps, stop } = await loopBehindProxy({ INVALIDATE_REFUSED_AFTER_SECONDS: '1' });
    try {
      const recipient = Wallet.createRandom().address;
      const refused = refuseFirstSend(proxy, GETH_NO_FUNDS);
      const a = await withdraw(loop.svc, v.vaultId, { recipientAddress: recipient, amount: '0.01', description: 'A, refused, invalidated' });
      expect(a.status).toBe(200);
      const held = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.refused !== undefined);
      expect(held.status).toBe('BROADCAST');
      expect(held.refused.invalidateAfter).toBeDefined();
      const done = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.status === 'FAILED' || o.status === 'CONFIRMED', 30_000);
      expect(done.status).toBe('FAILED');
      expect(done.failureReason).toMatch(
        /^cancelled: the cancel transaction 0x[0-9a-f]{64} landed \(the original was refused by the node: .*insufficient funds/,
      );
      const cancel = done.attempts[1];
      expect(cancel).toMatchObject({ kind: 'cancel', status: 'confirmed' });
      // Signed through its own custody sign request, like a cancel asked for on the route.
      expect(loop.custody.control.operation(cancel.operationID)?.status).toBe('COMPLETED');
      const op = (await deps.store.resolve(a.body.operationID))!;
      const receipt = await p.getTransactionReceipt(cancel.txids[0]);
      expect(receipt?.status).toBe(1);
      expect((await p.getTransaction(cancel.txids[0]))!.nonce).toBe(nonceOf(op));
      // The refused bytes can no longer land: their nonce is used.
      await expect(p.send('eth_sendRawTransaction', [refused.raw])).rejects.toThrow(/nonce too low/i);
      expect(await p.getBalance(recipient)).toBe(0n);
    } finally {
      await stop();
    }
  });

  it('bytes that can never be valid (a bad signature) still end the withdrawal FAILED at once', async () => {
    const { proxy, loop, v, stop } = await loopBehindProxy();
    try {
      const recipient = Wallet.createRandom().address;
      refuseFirstSend(proxy, GETH_BAD_SIGNATURE);
      const a = await withdraw(loop.svc, v.vaultId, { recipientAddress: recipient, amount: '0.01', description: 'A, bad signature' });
      const done = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.status === 'FAILED' || o.status === 'CONFIRMED' || o.refused !== undefined);
      expect(done).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining('invalid transaction v, r, s values') });
      expect(done.refused).toBeUndefined();
      expect(await p.getBalance(recipient)).toBe(0n);
    } finally {
      await stop();
    }
  });
});
