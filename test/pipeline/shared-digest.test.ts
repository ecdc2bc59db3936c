import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCallback, RECIPIENT, signedCallbackBody, startEthLoop, until, withdraw, type EthLoop } from './support.js';

/**
 * An Ethereum transaction does not name its sender: two vaults paying the same amount to the
 * same address at the same nonce and fee sign the very same digest. Each callback must still
 * find its own withdrawal (by the keys it carries), and reconciliation its own.
 */
describe('two vaults whose withdrawals share a digest', () => {
  let ctx: EthLoop;
  beforeAll(async () => {
    ctx = await startEthLoop({ env: { RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' } });
  });
  afterAll(() => ctx?.stop());

  async function twin(description: string) {
    const vaults = [await ctx.loop.vault('ethdev'), await ctx.loop.vault('ethdev')];
    for (const v of vaults) await ctx.chain.funder.sendEth(v.address, 10n ** 17n);
    for (const v of vaults) ctx.loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    // One fixed custom fee, so nothing but the sender differs between the two transactions.
    const made = [];
    for (const v of vaults) {
      const r = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.001', description, fee: '3' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      made.push({ vaultId: v.vaultId, operationID: r.body.operationID as string });
    }
    const digests = await Promise.all(made.map(async (m) => (await ctx.loop.svc.pipeline!.deps.store.resolve(m.operationID))!.unsigned.payloads[0]!.digest));
    expect(digests[0]).toBe(digests[1]);
    return made;
  }

  it('each callback completes its own vault’s withdrawal', async () => {
    const made = await twin('twin callbacks');
    for (const m of made) {
      await until('the quorum to sign', () => ctx.loop.custody.control.operation(m.operationID)?.status === 'COMPLETED');
      const r = await postCallback(ctx.loop.svc, 'ethdev', signedCallbackBody(ctx.loop, m.operationID));
      expect([r.status, r.body.outcome, r.body.operationID]).toEqual([200, 'queued', m.operationID]);
    }
    for (const m of made) {
      const done = await ctx.loop.waitFor(m.vaultId, m.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
      expect(done.status, done.failureReason).toBe('CONFIRMED');
    }
  });

  it('reconciliation completes each one from the custody service when both callbacks are lost', async () => {
    const made = await twin('twin reconciliation');
    for (const m of made) {
      const done = await ctx.loop.waitFor(m.vaultId, m.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 40_000);
      expect(done.status, done.failureReason).toBe('CONFIRMED');
    }
  });
});
