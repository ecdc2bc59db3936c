import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_KEY, WITHDRAW_KEY } from '../helpers/service.js';
import { type EthLoop, postCallback, RECIPIENT, startEthLoop, until, withdraw } from './support.js';

type Ending = 'DECLINED' | 'CANCELED' | 'FAILED' | 'ERROR';

const nonceOf = async (ctx: EthLoop, operationID: string): Promise<string> => {
  const op = await ctx.loop.svc.pipeline!.deps.store.resolve(operationID);
  return (op!.unsigned.state as { nonce: string }).nonce;
};

/** The withdrawal after `first` reuses its nonce and confirms: the failure gave the reservation back. */
async function nextReusesNonce(ctx: EthLoop, vaultId: string, firstNonce: string): Promise<void> {
  const next = await withdraw(ctx.loop.svc, vaultId, { recipientAddress: RECIPIENT, amount: '0.02', description: 'after the failure' });
  expect(next.status, JSON.stringify(next.body)).toBe(200);
  expect(await nonceOf(ctx, next.body.operationID)).toBe(firstNonce);
  const done = await ctx.loop.waitFor(vaultId, next.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
  expect(done.status, done.failureReason).toBe('CONFIRMED');
  expect((await ctx.p.getTransaction(done.txids[0]))!.nonce).toBe(Number(firstNonce));
}

async function fundedVault(ctx: EthLoop, ledgerId = 'ethdev') {
  const v = await ctx.loop.vault(ledgerId);
  await ctx.chain.funder.sendEth(v.address, 10n ** 17n);
  return v;
}

describe('sign operations that end unsigned, found by the callback path', () => {
  let ctx: EthLoop;
  // Reconciliation far away: only the callback can end these withdrawals within the test.
  beforeAll(async () => {
    ctx = await startEthLoop({
      env: { RECONCILE_AFTER_SECONDS: '3600' },
      // Same chain, confirmations never reached while the test runs: withdrawals stay BROADCAST.
      extraLedgers: (rpcUrl) => ({ slowdev: { family: 'ethereum', chainId: 31337, rpcUrl, confirmations: 50 } }),
    });
  });
  afterAll(() => ctx?.stop());

  for (const ending of ['DECLINED', 'FAILED'] as Ending[]) {
    it(`a callback without signatures for a ${ending} operation fails the withdrawal, and its nonce is reused`, async () => {
      const v = await fundedVault(ctx);
      ctx.loop.custody.control.setFaults({ end: ending, notifyEnd: true }, v.vaultId);
      const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: `ends ${ending}` });
      expect(res.status).toBe(200);
      const firstNonce = await nonceOf(ctx, res.body.operationID);
      const done = await ctx.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status !== 'EXECUTING');
      expect(done.status).toBe('FAILED');
      expect(done.failureReason).toMatch(new RegExp(`^sign operation ${ending} at the custody service`));
      const deliveries = await until('the delivery to finish', () => ctx.loop.custody.control.operation(res.body.operationID)?.deliveries[0]);
      expect(deliveries).toEqual({ delivered: 1, failed: 0, dropped: false });
      ctx.loop.custody.control.setFaults({}, v.vaultId);
      await nextReusesNonce(ctx, v.vaultId, firstNonce);
    });
  }

  it('a callback without signatures is not trusted: a still-pending operation stays EXECUTING', async () => {
    const v = await fundedVault(ctx);
    ctx.loop.custody.control.setFaults({ holdApprovals: true }, v.vaultId);
    const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'claimed declined' });
    const op = await ctx.loop.svc.pipeline!.deps.store.resolve(res.body.operationID);
    const forged = { publicKeys: [v.publicKey], providerData: '', dataToSign: op!.unsigned.payloads.map((p) => p.digest), signatures: [], v: [] };
    const r = await postCallback(ctx.loop.svc, 'ethdev', forged);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ accepted: true, outcome: 'pending', withdrawalId: res.body.withdrawalId, operationID: res.body.operationID });
    expect((await ctx.loop.svc.pipeline!.deps.store.resolve(res.body.operationID))!.status).toBe('EXECUTING');
  });

  describe('POST /vaults/{vaultId}/withdrawals/{operationID}/cancel', () => {
    const cancel = (vaultId: string, operationID: string, key = WITHDRAW_KEY) =>
      ctx.loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals/${operationID}/cancel`, { key });

    it('cancels the custody sign operation of an EXECUTING withdrawal; FAILED, nonce reused', async () => {
      const v = await fundedVault(ctx);
      ctx.loop.custody.control.setFaults({ holdApprovals: true }, v.vaultId);
      const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'to cancel' });
      const firstNonce = await nonceOf(ctx, res.body.operationID);
      expect((await cancel(v.vaultId, res.body.operationID, READ_KEY)).status).toBe(403);
      const r = await cancel(v.vaultId, res.body.operationID);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ operationID: res.body.operationID, status: 'FAILED', isComplete: true });
      expect(r.body.failureReason).toBe('canceled on request: sign operation CANCELED at the custody service');
      expect(ctx.loop.custody.control.operation(res.body.operationID)!.status).toBe('CANCELED');
      // A second cancel finds nothing left to cancel.
      const again = await cancel(v.vaultId, res.body.operationID);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ errCode: 'ERR_NOT_CANCELABLE', details: expect.stringContaining('FAILED') });
      ctx.loop.custody.control.setFaults({}, v.vaultId);
      await nextReusesNonce(ctx, v.vaultId, firstNonce);
    });

    it('does not cancel what the quorum signed already (its callback lost): 409, still EXECUTING', async () => {
      const v = await fundedVault(ctx);
      ctx.loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
      const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'signed first' });
      await until('the quorum to sign', () => ctx.loop.custody.control.operation(res.body.operationID)?.status === 'COMPLETED');
      const r = await cancel(v.vaultId, res.body.operationID);
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.details).toMatch(/COMPLETED/);
      expect((await ctx.loop.svc.pipeline!.deps.store.resolve(res.body.operationID))!.status).toBe('EXECUTING');
    });

    it('answers 409 for a confirmed withdrawal, 404 for an unknown one or another vault', async () => {
      const v = await fundedVault(ctx);
      const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'confirms' });
      await ctx.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED', 30_000);
      const r = await cancel(v.vaultId, res.body.operationID);
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ errCode: 'ERR_NOT_CANCELABLE', details: expect.stringContaining('CONFIRMED') });
      expect((await cancel(v.vaultId, 'no-such-operation')).status).toBe(404);
      const other = await fundedVault(ctx);
      expect((await cancel(other.vaultId, res.body.operationID)).status).toBe(404);
    });

    it('cancels a withdrawal already on the ledger (BROADCAST) by a replacement, not at the custody service', async () => {
      const v = await fundedVault(ctx, 'slowdev');
      const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'on the ledger' });
      await ctx.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST', 30_000);
      const r = await cancel(v.vaultId, res.body.operationID);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.status).toBe('BROADCAST');
      expect(r.body.attempts.map((a: { kind: string }) => a.kind)).toEqual(['original', 'cancel']);
      // The original sign operation was completed, not canceled: the cancel is a new sign request.
      expect(ctx.loop.custody.control.operation(res.body.operationID)!.status).toBe('COMPLETED');
    });
  });
}, 120_000);

describe('sign operations that end unsigned, found by reconciliation', () => {
  let ctx: EthLoop;
  beforeAll(async () => {
    ctx = await startEthLoop({ env: { RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' } });
  });
  afterAll(() => ctx?.stop());

  for (const ending of ['CANCELED', 'ERROR'] as Ending[]) {
    it(`a ${ending} operation with no callback at all fails the withdrawal; its nonce is reused`, async () => {
      const v = await fundedVault(ctx);
      ctx.loop.custody.control.setFaults({ end: ending }, v.vaultId);
      const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: `ends ${ending}` });
      const firstNonce = await nonceOf(ctx, res.body.operationID);
      const done = await ctx.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status !== 'EXECUTING', 20_000);
      expect(done.status).toBe('FAILED');
      expect(done.failureReason).toMatch(new RegExp(`^sign operation ${ending} at the custody service`));
      expect(ctx.loop.custody.control.operation(res.body.operationID)!.deliveries).toEqual([]);
      ctx.loop.custody.control.setFaults({}, v.vaultId);
      await nextReusesNonce(ctx, v.vaultId, firstNonce);
    });
  }
}, 120_000);
