import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCallback } from '../../src/security/callback-hmac.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { ADMIN_KEY } from '../helpers/service.js';
import { RECIPIENT, until, withdraw } from '../pipeline/support.js';
import { startReceiver } from './support.js';

describe('a real withdrawal tells the integrator each step by webhook', () => {
  let chain: TestChain;
  let loop: Loop;

  beforeAll(async () => {
    chain = await startTestChain();
    loop = await startLoop({ ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } }, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: '50' } });
  });
  afterAll(async () => {
    await loop.stop();
    await chain.stop();
  });

  it('delivers created → sign_requested → signed → broadcast → confirmed, each the withdrawal as the API shows it', async () => {
    const receiver = await startReceiver();
    const sub = await loop.svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url: receiver.url, events: ['*'] } });
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.25', description: 'hooked' });
    expect(res.status).toBe(200);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    await until('five events', () => receiver.received.length >= 5, 20_000);
    const bodies = receiver.received.map((r) => r.body);
    expect(bodies.map((b) => [b.sequence, b.type])).toEqual([
      [1, 'withdrawal.created'],
      [2, 'withdrawal.sign_requested'],
      [3, 'withdrawal.signed'],
      [4, 'withdrawal.broadcast'],
      [5, 'withdrawal.confirmed'],
    ]);
    // One id end to end: the POST's withdrawalId is every event's, from sequence 1 on.
    expect(res.body.withdrawalId).toEqual(expect.any(String));
    expect(res.body.operationID).not.toBe(res.body.withdrawalId);
    expect(bodies.map((b) => [b.withdrawalId, b.withdrawal.withdrawalId])).toEqual(bodies.map(() => [res.body.withdrawalId, res.body.withdrawalId]));
    // `withdrawal.created` comes before the custody service answered: no custody id yet, and never the service's own.
    expect(bodies[0].withdrawal).not.toHaveProperty('operationID');
    expect(bodies[0].withdrawal).not.toHaveProperty('id');
    expect(bodies.slice(1).every((b) => b.withdrawal.operationID === res.body.operationID && b.withdrawal.id === res.body.operationID)).toBe(true);
    expect(bodies[4].withdrawal).toEqual(done);
    for (const r of receiver.received) {
      expect(
        checkCallback(sub.body.secret, Buffer.from(r.raw), r.headers['x-webhook-timestamp'] as string, r.headers['x-webhook-signature'] as string, 300),
      ).toBeUndefined();
    }
    const listed = await loop.svc.call('GET', `/api/v1.0/admin/withdrawals?vaultId=${v.vaultId}&status=CONFIRMED`, { key: ADMIN_KEY });
    expect(listed.body.items).toEqual([done]);
    await receiver.close();
  });
});
