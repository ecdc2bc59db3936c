import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WITHDRAW_KEY } from '../helpers/service.js';
import { RECIPIENT, startEthLoop, until, withdraw, type EthLoop } from './support.js';

/**
 * docs/withdrawals.md, "Declined and canceled signing": a cancel answers the withdrawal FAILED only once the
 * custody service confirmed. Here the cancel comes while the creation's sign request is still on
 * its way (a slow custody service, a retry after a timeout), before any sign operation exists.
 */
describe('cancel while the sign request is on its way to the custody service', () => {
  let ctx: EthLoop;
  beforeAll(async () => {
    // Reconciliation far away: only the cancel and the creation act on these withdrawals.
    ctx = await startEthLoop({ env: { RECONCILE_AFTER_SECONDS: '3600' } });
  });
  afterAll(() => ctx?.stop());

  const custody = () => ctx.loop.svc.pipeline!.deps.custody;
  const cancel = (vaultId: string, id: string) => ctx.loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}/cancel`, { key: WITHDRAW_KEY });
  const custodyOperationOf = (id: string) =>
    ctx.loop.custody.control.operations().find((o) => (JSON.parse(o.providerData) as { reference?: string }).reference === id);

  /** Let go after each test, so a failed assertion leaves no request hanging. */
  const holds: (() => void)[] = [];

  /** Holds the creation's sign request until `letGo` (the custody service is slow to answer); `id` is the withdrawal's. */
  function holdSignRequest() {
    const c = custody();
    const real = c.requestSign.bind(c);
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    holds.push(letGo);
    const state: { id?: string; letGo: () => void } = { letGo };
    c.requestSign = async (...args: Parameters<typeof real>) => {
      state.id = (JSON.parse(args[1].providerData) as { reference: string }).reference;
      await held;
      return real(...args);
    };
    return state;
  }

  afterEach(() => {
    for (const letGo of holds.splice(0)) letGo();
    Reflect.deleteProperty(custody(), 'requestSign');
    Reflect.deleteProperty(custody(), 'longestCallMs');
  });

  async function heldVault() {
    const v = await ctx.loop.vault('ethdev');
    await ctx.chain.funder.sendEth(v.address, 10n ** 17n);
    ctx.loop.custody.control.setFaults({ holdApprovals: true }, v.vaultId);
    return v;
  }

  it('answers 409 ERR_SIGN_REQUEST_IN_FLIGHT while the request is on its way; a cancel once it arrived cancels the sign operation', async () => {
    const v = await heldVault();
    const hold = holdSignRequest();
    const creation = withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'cancel me early' });
    const id = await until('the sign request to go out', () => hold.id);

    const early = await cancel(v.vaultId, id);
    expect(early.status, JSON.stringify(early.body)).toBe(409);
    expect(early.body).toMatchObject({ errCode: 'ERR_SIGN_REQUEST_IN_FLIGHT', details: expect.stringContaining('cancel again in a few seconds') });
    expect((await ctx.loop.svc.pipeline!.deps.store.resolve(id))!.status).toBe('EXECUTING');

    hold.letGo();
    const created = await creation;
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.status).toBe('EXECUTING');
    expect(custodyOperationOf(id)!.status).toBe('PENDING');

    const again = await cancel(v.vaultId, created.body.operationID);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ status: 'FAILED', failureReason: 'canceled on request: sign operation CANCELED at the custody service' });
    expect(custodyOperationOf(id)!.status).toBe('CANCELED');
  });

  it('a withdrawal that ended while its sign request was on its way has the sign operation canceled when it arrives', async () => {
    const v = await heldVault();
    const hold = holdSignRequest();
    const creation = withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'ended meanwhile' });
    const id = await until('the sign request to go out', () => hold.id);
    // As if the withdrawal were older than the connector's longest call: the cancel fails it at once.
    Object.defineProperty(custody(), 'longestCallMs', { value: 0, configurable: true });
    const cancelled = await cancel(v.vaultId, id);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'FAILED', failureReason: 'canceled on request before the sign request reached the custody service' });

    hold.letGo();
    const created = await creation;
    expect(created.body.status).toBe('FAILED');
    // The sign operation made by the late request does not wait for approvers.
    expect(custodyOperationOf(id)!.status).toBe('CANCELED');
  });
}, 120_000);
