import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WithdrawalEvent } from '../../src/withdrawals/store/outbox.js';
import { ADMIN_KEY, READ_KEY, WITHDRAW_KEY } from '../helpers/service.js';
import { startReceiver } from '../webhooks/support.js';
import { RECIPIENT, startEthLoop, until, withdraw, type EthLoop } from './support.js';

/**
 * docs/api.md, "One id": the service's own id (`withdrawalId`) is in the POST answer, every view
 * and every event from `withdrawal.created` on; `operationID` (also `id`) is only ever the
 * custody operation id, absent until the custody service accepted the sign request; every
 * withdrawal route takes either id.
 */
describe('one withdrawal id, end to end', () => {
  let ctx: EthLoop;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    // Reconciliation far away: only the requests of the tests act on these withdrawals.
    ctx = await startEthLoop({ env: { RECONCILE_AFTER_SECONDS: '3600', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: '50' } });
    receiver = await startReceiver();
    const sub = await ctx.loop.svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url: receiver.url, events: ['*'] } });
    expect(sub.status).toBe(201);
  });
  afterAll(async () => {
    await receiver?.close();
    await ctx?.stop();
  });

  const custody = () => ctx.loop.svc.pipeline!.deps.custody;
  const holds: (() => void)[] = [];
  afterEach(() => {
    for (const letGo of holds.splice(0)) letGo();
    Reflect.deleteProperty(custody(), 'requestSign');
  });

  const get = (vaultId: string, id: string) => ctx.loop.svc.call('GET', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}`, { key: READ_KEY });
  const cancel = (vaultId: string, id: string) => ctx.loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}/cancel`, { key: WITHDRAW_KEY });
  const adminItem = async (vaultId: string, withdrawalId: string) =>
    (await ctx.loop.svc.call('GET', `/api/v1.0/admin/withdrawals?vaultId=${vaultId}`, { key: ADMIN_KEY })).body.items.find(
      (w: { withdrawalId?: string }) => w.withdrawalId === withdrawalId,
    );
  /** The webhook events of `withdrawalId`, once `n` arrived, in order. */
  const events = async (withdrawalId: string, n: number): Promise<WithdrawalEvent[]> => {
    const of = () => receiver.received.map((r) => r.body as WithdrawalEvent).filter((e) => e.withdrawalId === withdrawalId);
    await until(`${n} events of ${withdrawalId}`, () => of().length >= n, 20_000);
    return of().sort((x, y) => x.sequence - y.sequence);
  };

  /** A funded vault whose sign operations wait for approvers (stay EXECUTING). */
  async function heldVault() {
    const v = await ctx.loop.vault('ethdev');
    await ctx.chain.funder.sendEth(v.address, 10n ** 17n);
    ctx.loop.custody.control.setFaults({ holdApprovals: true }, v.vaultId);
    return v;
  }

  it('the POST answers withdrawalId beside the custody operationID; GET by either id is the same withdrawal, in every view and event', async () => {
    const v = await heldVault();
    const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'one id' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { withdrawalId, operationID } = res.body as { withdrawalId: string; operationID: string };
    expect(withdrawalId).toMatch(/^[0-9a-f-]{36}$/);
    expect(operationID).toEqual(expect.any(String));
    expect(operationID).not.toBe(withdrawalId);
    expect(res.body.id).toBe(operationID);

    const byOwn = await get(v.vaultId, withdrawalId);
    const byCustody = await get(v.vaultId, operationID);
    expect([byOwn.status, byCustody.status]).toEqual([200, 200]);
    expect(byOwn.body).toMatchObject({ withdrawalId, operationID, id: operationID, status: 'EXECUTING' });
    expect(byCustody.body).toEqual(byOwn.body);
    expect((await get('another-vault', withdrawalId)).status).toBe(404);

    const listed = await ctx.loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: READ_KEY });
    expect(listed.body.items.map((w: { withdrawalId: string; operationID: string }) => [w.withdrawalId, w.operationID])).toEqual([[withdrawalId, operationID]]);
    expect(await adminItem(v.vaultId, withdrawalId)).toEqual(byOwn.body);

    const evs = await events(withdrawalId, 2);
    expect(evs.map((e) => [e.sequence, e.type, e.withdrawal.withdrawalId])).toEqual([
      [1, 'withdrawal.created', withdrawalId],
      [2, 'withdrawal.sign_requested', withdrawalId],
    ]);
    expect(evs[0]!.withdrawal).not.toHaveProperty('operationID');
    expect(evs[0]!.withdrawal).not.toHaveProperty('id');
    expect(evs[1]!.withdrawal).toMatchObject({ operationID, id: operationID });
  });

  it('cancel takes either id, and answers the withdrawal under its withdrawalId', async () => {
    const v = await heldVault();
    const [a, b] = await Promise.all(
      ['cancel by own id', 'cancel by custody id'].map((description) =>
        withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description }),
      ),
    );
    const byOwn = await cancel(v.vaultId, a!.body.withdrawalId);
    expect(byOwn.status, JSON.stringify(byOwn.body)).toBe(200);
    expect(byOwn.body).toMatchObject({ withdrawalId: a!.body.withdrawalId, operationID: a!.body.operationID, status: 'FAILED' });
    const byCustody = await cancel(v.vaultId, b!.body.operationID);
    expect(byCustody.status, JSON.stringify(byCustody.body)).toBe(200);
    expect(byCustody.body).toMatchObject({ withdrawalId: b!.body.withdrawalId, operationID: b!.body.operationID, status: 'FAILED' });
    for (const w of [a!, b!]) {
      const evs = await events(w.body.withdrawalId, 3);
      expect(evs.map((e) => [e.sequence, e.type])).toEqual([
        [1, 'withdrawal.created'],
        [2, 'withdrawal.sign_requested'],
        [3, 'withdrawal.failed'],
      ]);
      expect(evs.every((e) => e.withdrawal.withdrawalId === w.body.withdrawalId)).toBe(true);
    }
  });

  it('while the sign request is on its way, operationID and id are absent, not the service id', async () => {
    const v = await heldVault();
    const real = custody().requestSign.bind(custody());
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    holds.push(letGo);
    let reference: string | undefined;
    custody().requestSign = async (...args: Parameters<typeof real>) => {
      reference = (JSON.parse(args[1].providerData) as { reference: string }).reference;
      await held;
      return real(...args);
    };
    const creation = withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'sign request held' });
    const withdrawalId = await until('the sign request to go out', () => reference);

    const pending = await get(v.vaultId, withdrawalId);
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body).toMatchObject({ withdrawalId, status: 'EXECUTING' });
    expect(pending.body).not.toHaveProperty('operationID');
    expect(pending.body).not.toHaveProperty('id');
    expect(pending.body.attempts.map((a: object) => 'operationID' in a)).toEqual([false]);
    expect(await adminItem(v.vaultId, withdrawalId)).toEqual(pending.body);

    letGo();
    const created = await creation;
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.withdrawalId).toBe(withdrawalId);
    expect(created.body.operationID).not.toBe(withdrawalId);
    expect((await get(v.vaultId, created.body.operationID)).body.withdrawalId).toBe(withdrawalId);
  });

  it('a sign request the custody service refused: the withdrawal FAILED without ever having an operationID', async () => {
    const v = await heldVault();
    custody().requestSign = async () => {
      throw new Error('the custody service is down');
    };
    const res = await withdraw(ctx.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'sign request refused' });
    expect(res.status).toBeGreaterThanOrEqual(500);
    const [item] = (await ctx.loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: READ_KEY })).body.items;
    expect(item).toMatchObject({ status: 'FAILED', withdrawalId: expect.any(String) });
    expect(item).not.toHaveProperty('operationID');
    expect(item).not.toHaveProperty('id');
    expect((await get(v.vaultId, item.withdrawalId)).body).toEqual(item);
    const evs = await events(item.withdrawalId, 2);
    expect(evs.map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.failed']);
    expect(evs.some((e) => 'operationID' in e.withdrawal || 'id' in e.withdrawal)).toBe(false);
  });
}, 120_000);
