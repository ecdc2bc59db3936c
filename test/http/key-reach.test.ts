import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { startInMemoryCustodyEmulator, type RunningInMemoryCustodyEmulator } from '../../src/dev/custody-emulator/index.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { ADMIN_KEY, READ_KEY, TEST_API_KEYS, TEST_CALLBACK_SECRET, startTestService, type TestService } from '../helpers/service.js';
import { RECIPIENT } from '../pipeline/support.js';

const KEY_A = 'key-of-vault-a-0123456789abcdef012345';
const KEY_B = 'key-of-vault-b-0123456789abcdef012345';
const ADMIN_A = 'admin-of-vault-a-0123456789abcdef012345';
const LEDGER_DEV = 'reader-of-ethdev-0123456789abcdef012345';
const LEDGER_OTHER = 'reader-of-ethtest-0123456789abcdef012345';

/**
 * API keys limited to vaults (API_KEYS `vaults`) or ledgers (`ledgers`): each sees and
 * withdraws from its own only; a vault outside its reach answers exactly as an unregistered one.
 */
describe('API keys limited to vaults and ledgers', () => {
  let chain: TestChain;
  let custody: RunningInMemoryCustodyEmulator;
  let svc: TestService;
  let va: { vaultId: string; publicKey: string };
  let vb: { vaultId: string; publicKey: string };
  let spare: { vaultId: string; publicKey: string };
  const call = (key: string, method: string, path: string, body?: unknown) => svc.call(method, `/api/v1.0${path}`, { key, body });
  const withdraw = (key: string, vaultId: string, body: object = {}) =>
    call(key, 'POST', `/vaults/${vaultId}/withdrawals`, { recipientAddress: RECIPIENT, amount: '0.01', description: 'scoped', ...body });

  beforeAll(async () => {
    chain = await startTestChain();
    const port = await freePort();
    custody = await startInMemoryCustodyEmulator({
      callback: { secret: TEST_CALLBACK_SECRET, baseUrl: `http://127.0.0.1:${port}` },
      quorum: { approvers: 3, required: 2, approvalDelayMs: 5 },
    });
    va = custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    vb = custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    spare = custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    svc = await startTestService(
      { ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } },
      {
        pipeline: true,
        port,
        env: {
          CUSTODY_URL: custody.url,
          API_KEYS: JSON.stringify([
            ...TEST_API_KEYS,
            { name: 'key-a', key: KEY_A, scopes: ['read', 'withdraw'], vaults: [va.vaultId] },
            { name: 'key-b', key: KEY_B, scopes: ['read', 'withdraw'], vaults: [vb.vaultId] },
            { name: 'admin-a', key: ADMIN_A, scopes: ['admin', 'read'], vaults: [va.vaultId, spare.vaultId] },
            { name: 'ethdev-reader', key: LEDGER_DEV, scopes: ['read'], ledgers: ['ethdev'] },
            { name: 'ethtest-reader', key: LEDGER_OTHER, scopes: ['read'], ledgers: ['ethtest'] },
          ]),
        },
      },
    );
    for (const v of [va, vb]) {
      const res = await call(ADMIN_KEY, 'POST', '/admin/vaults', { vaultId: v.vaultId, ledgerId: 'ethdev', publicKey: v.publicKey });
      expect(res.status).toBe(201);
      await chain.funder.sendEth(res.body.address, 10n ** 18n);
    }
  });
  afterAll(async () => {
    await svc?.stop();
    await custody?.stop();
    await chain?.stop();
  });

  it('each key withdraws from its own vault only; another vault answers as an unregistered one (404)', async () => {
    const a = await withdraw(KEY_A, va.vaultId);
    expect(a.status).toBe(200);
    expect(a.body.status).toBe('EXECUTING');
    const b = await withdraw(KEY_B, vb.vaultId);
    expect(b.status).toBe(200);
    const unknown = await withdraw(KEY_A, 'no-such-vault');
    expect(unknown.status).toBe(404);
    for (const [key, vault, own, ownOp, otherOp] of [
      [KEY_A, vb.vaultId, va.vaultId, a.body.operationID, b.body.operationID],
      [KEY_B, va.vaultId, vb.vaultId, b.body.operationID, a.body.operationID],
    ] as const) {
      const refused = await withdraw(key, vault);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ ...unknown.body, details: unknown.body.details.replace('no-such-vault', vault) });
      expect((await call(key, 'GET', `/vaults/${vault}/balance`)).status).toBe(404);
      expect((await call(key, 'GET', `/vaults/${vault}/withdrawals`)).status).toBe(404);
      expect((await call(key, 'GET', `/vaults/${vault}/withdrawals/${otherOp}`)).status).toBe(404);
      expect((await call(key, 'GET', `/vaults/${own}/withdrawals/${otherOp}`)).status).toBe(404);
      expect((await call(key, 'POST', `/vaults/${vault}/withdrawals/${otherOp}/cancel`)).status).toBe(404);
      expect((await call(key, 'POST', `/vaults/${vault}/withdrawals/${otherOp}/speed-up`)).status).toBe(404);
      // Its own: seen as before.
      expect((await call(key, 'GET', `/vaults/${own}/balance`)).status).toBe(200);
      const list = await call(key, 'GET', `/vaults/${own}/withdrawals`);
      expect(list.body.items.map((w: { operationID: string }) => w.operationID)).toEqual([ownOp]);
      expect((await call(key, 'GET', `/vaults/${own}/withdrawals/${ownOp}`)).status).toBe(200);
      // Paying another vault by its id is acting on it too: 403, whether or not it exists.
      expect((await withdraw(key, own, { recipientAddress: undefined, recipientVault: vault })).status).toBe(403);
      expect((await withdraw(key, own, { recipientAddress: undefined, recipientVault: 'no-such-vault' })).status).toBe(403);
    }
  });

  it('keys without vaults or ledgers behave as before', async () => {
    for (const v of [va, vb]) {
      expect((await call(READ_KEY, 'GET', `/vaults/${v.vaultId}/balance`)).status).toBe(200);
      expect((await call(READ_KEY, 'GET', `/vaults/${v.vaultId}/withdrawals`)).body.items).toHaveLength(1);
    }
    expect((await call(ADMIN_KEY, 'GET', '/admin/vaults')).body.totalItems).toBe(2);
    expect((await call(ADMIN_KEY, 'GET', '/admin/withdrawals')).body.items).toHaveLength(2);
    expect((await call(ADMIN_KEY, 'GET', '/admin/webhooks')).status).toBe(200);
  });

  it('an admin key limited to vaults manages those only, and not what spans every vault', async () => {
    const vaults = await call(ADMIN_A, 'GET', '/admin/vaults');
    expect(vaults.body).toMatchObject({ totalItems: 1, items: [{ vaultId: va.vaultId }] });
    expect((await call(ADMIN_A, 'GET', `/admin/vaults/${vb.vaultId}`)).status).toBe(404);
    expect((await call(ADMIN_A, 'DELETE', `/admin/vaults/${vb.vaultId}`)).status).toBe(404);
    expect((await call(ADMIN_A, 'GET', `/admin/vaults/${va.vaultId}`)).status).toBe(200);
    const withdrawals = await call(ADMIN_A, 'GET', '/admin/withdrawals');
    expect(withdrawals.body.items.map((w: { vaultId: string }) => w.vaultId)).toEqual([va.vaultId]);
    expect((await call(ADMIN_A, 'GET', `/admin/withdrawals?vaultId=${vb.vaultId}`)).body.items).toEqual([]);
    // It registers the vaults it names, no other.
    const other = custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    const refused = await call(ADMIN_A, 'POST', '/admin/vaults', { vaultId: other.vaultId, ledgerId: 'ethdev', publicKey: other.publicKey });
    expect(refused.status).toBe(403);
    expect(refused.body.details).toContain(`may act on vaults ${va.vaultId}, ${spare.vaultId} only`);
    expect((await call(ADMIN_A, 'POST', '/admin/vaults', { vaultId: spare.vaultId, ledgerId: 'ethdev', publicKey: spare.publicKey })).status).toBe(201);
    expect((await call(ADMIN_A, 'GET', '/admin/vaults')).body.totalItems).toBe(2);
    // Webhook subscriptions carry the events of every vault.
    const hooks = await call(ADMIN_A, 'GET', '/admin/webhooks');
    expect(hooks.status).toBe(403);
    expect(hooks.body.details).toContain('spans every vault');
    expect((await call(ADMIN_A, 'POST', '/admin/webhooks', { url: 'https://93.184.215.14/hook', events: ['*'] })).status).toBe(403);
    // The job dashboard shows the jobs of every vault.
    const dashboard = (key: string) => fetch(`${svc.url}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${key}` } });
    expect((await dashboard(ADMIN_A)).status).toBe(401);
    expect((await dashboard(ADMIN_KEY)).status).toBe(200);
    expect((await call(ADMIN_KEY, 'DELETE', `/admin/vaults/${spare.vaultId}`)).status).toBe(200);
  });

  it('a key limited to ledgers sees the vaults of those ledgers only', async () => {
    expect((await call(LEDGER_DEV, 'GET', `/vaults/${va.vaultId}/balance`)).status).toBe(200);
    expect((await call(LEDGER_DEV, 'GET', `/vaults/${vb.vaultId}/withdrawals`)).body.items).toHaveLength(1);
    const outside = await call(LEDGER_OTHER, 'GET', `/vaults/${va.vaultId}/withdrawals`);
    expect(outside.status).toBe(404);
    // The same answer as for a vault that does not exist.
    const none = await call(LEDGER_OTHER, 'GET', '/vaults/no-such-vault/withdrawals');
    expect(none.status).toBe(404);
    expect(outside.body.details).toBe(none.body.details.replace('no-such-vault', va.vaultId));
    expect((await call(LEDGER_OTHER, 'GET', `/ledgers/ethdev/addresses/${RECIPIENT}/balance`)).status).toBe(403);
    expect((await call(LEDGER_DEV, 'GET', `/ledgers/ethdev/addresses/${RECIPIENT}/balance`)).status).toBe(200);
  });
});
