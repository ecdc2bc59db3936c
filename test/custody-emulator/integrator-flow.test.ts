import { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAmount } from '../../src/ledger/amounts.js';
import { freePort } from '../../src/dev/free-port.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { ADMIN_KEY, READ_KEY, startTestService, WITHDRAW_KEY, type TestService } from '../helpers/service.js';
import { ADMIN, dropPrefix, startHarness, type Harness } from './harness.js';

const RECIPIENT = '0x00000000000000000000000000000000000000C1';
const CONNECTOR = { user: 'connector', password: 'connector-password-0123' };

/**
 * The integrator's whole flow, over HTTP, in the order of the custody vendor's samples:
 * administrator token → account → participants (activated on their devices) → vault with a
 * 2-of-3 group (NOT_INITIALIZED until every member joined) → registration here by vault id,
 * the connector logging in by user and password → withdrawal on anvil → approvals on the
 * members' devices → callback without HMAC → CONFIRMED; and a declined one → FAILED.
 */
describe('integrator flow against the custody emulator', () => {
  let chain: TestChain;
  let h: Harness;
  let svc: TestService;
  let provider: JsonRpcProvider;
  let token: string;
  let vaultId: string;
  let address: string;
  let members: { id: string; name: string }[];

  beforeAll(async () => {
    chain = await startTestChain();
    provider = new JsonRpcProvider(chain.anvil.url, undefined, { cacheTimeout: -1, staticNetwork: true });
    const port = await freePort();
    // Manual approver policy (the default): only the device routes answer.
    h = await startHarness({ callbackBaseUrl: `http://127.0.0.1:${port}` });
    svc = await startTestService(
      { ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } },
      {
        pipeline: true,
        workers: true,
        port,
        env: {
          CUSTODY_URL: h.running.url,
          CUSTODY_USER: CONNECTOR.user,
          CUSTODY_PASSWORD: CONNECTOR.password,
          CALLBACK_SECRET: '',
          CONFIRM_POLL_MS: '100',
          RECONCILE_AFTER_SECONDS: '1',
          RECONCILE_INTERVAL_SECONDS: '1',
        },
      },
    );
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
    provider?.destroy();
    if (h) {
      await h.stop();
      await dropPrefix(h.redis, h.prefix);
    }
    await chain?.stop();
  });

  const mng = (method: string, path: string, body?: unknown) => h.call(method, path, body, { token });
  const device = (path: string, body?: unknown) => h.call('POST', path, body, { base: 'emulator', basic: ADMIN });
  const withdraw = (body: object) => svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });
  const withdrawal = async (operationID: string) => (await svc.call('GET', `/api/v1.0/vaults/${vaultId}/withdrawals/${operationID}`, { key: READ_KEY })).body;
  async function waitFor(operationID: string, until: (o: any) => boolean, timeoutMs = 60_000): Promise<any> {
    const end = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < end) {
      last = await withdrawal(operationID);
      if (until(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`withdrawal ${operationID} did not get there; last: ${JSON.stringify(last)}`);
  }
  const nonceOf = async (operationID: string) => (await svc.pipeline!.deps.store.resolve(operationID))!.unsigned.state as { nonce: string };
  /** The sign operation as a member's device lists it: the one waiting for that member. */
  async function pendingFor(memberId: string, operationID: string) {
    const list = await h.call('GET', `/participants/${memberId}/operations`, undefined, { base: 'emulator', basic: ADMIN });
    return (list.json as { operationID: string; kind: string }[]).find((o) => o.operationID === operationID);
  }

  it('sets up the custody side the way the samples do, and registers the vault here by id', async () => {
    // Administrator token: form-encoded body, user and password in HTTP Basic.
    const login = await h.call(
      'POST',
      '/auth/token',
      { grant_type: 'password', client_id: 'samples', scope: '/mng', username: ADMIN.user, password: ADMIN.password },
      { basic: ADMIN, form: true },
    );
    expect(login.status, JSON.stringify(login.json)).toBe(201);
    expect(login.json).toMatchObject({
      access_token: expect.any(String),
      token_type: expect.stringMatching(/^bearer$/i),
      expires_in: 1200,
      role: 'SUPER_USER',
    });
    token = login.json.access_token;
    // The connector's own custody user.
    expect((await mng('POST', '/auth/users', { name: CONNECTOR.user, password: CONNECTOR.password, role: 'Trader' })).status).toBe(201);

    const account = await mng('POST', '/accounts', { name: 'treasury' });
    expect(account.status).toBe(201);
    members = [];
    for (const name of ['alice', 'bob', 'carol']) {
      const p = await mng('POST', `/accounts/${account.json.id}/participants`, { name, email: `${name}@example.com`, role: 'approver' });
      expect(p.status, JSON.stringify(p.json)).toBe(201);
      expect(p.json).toEqual({ id: expect.any(String), name, activationCode: expect.any(String) });
      expect((await mng('GET', `/participants/${p.json.id}`)).json.status).toBe('NOT_ACTIVATED');
      const activated = await device(`/participants/${p.json.id}/activate`, { activationCode: p.json.activationCode });
      expect(activated.json).toMatchObject({ id: p.json.id, status: 'ACTIVATED' });
      members.push({ id: p.json.id, name });
    }

    const created = await mng('POST', `/accounts/${account.json.id}/vaults`, {
      name: 'hot',
      cryptoKind: 'ECDSA',
      groups: [{ name: 'approvers', requiredApprovals: 2, members: members.map(({ id }) => ({ id })) }],
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    vaultId = created.json.id;
    expect((await mng('GET', `/vaults/${vaultId}`)).json.status).toBe('NOT_INITIALIZED');
    // Not registrable before it is initialized: the custody service has no key to give yet.
    const early = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId, ledgerId: 'ethdev' } });
    expect(early.status, JSON.stringify(early.body)).toBe(422);
    expect(early.body.details).toContain('not initialized there yet: every member of its approval groups must join it first');
    for (const m of members) expect((await device(`/participants/${m.id}/vaults/${vaultId}/join`)).status).toBe(200);
    expect((await mng('GET', `/vaults/${vaultId}`)).json).toMatchObject({ status: 'INITIALIZED', isActive: true });
    const key = (await mng('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;

    const registered = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId, ledgerId: 'ethdev' } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body).toMatchObject({ vaultId, ledgerId: 'ethdev', kind: 'single', publicKey: key });
    address = registered.body.address;
    await chain.funder.sendEth(address, 2n * 10n ** 18n);
  });

  it('withdraws: two approvals on the devices, the callback without HMAC, CONFIRMED with the exact balances', async () => {
    const before = await provider.getBalance(RECIPIENT);
    const vaultBefore = await provider.getBalance(address);
    const res = await withdraw({ recipientAddress: RECIPIENT, amount: '0.25', description: 'approved' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.operationID as string;
    // The connector's sign request reached the custody service, under its own user's token.
    expect((await mng('GET', `/operations/sign/${id}`)).json).toMatchObject({ operationID: id, status: 'PENDING', vaultID: vaultId });
    expect(await pendingFor(members[0]!.id, id)).toMatchObject({ kind: 'SIGN' });

    expect((await device(`/participants/${members[0]!.id}/operations/${id}/approve`)).json.status).toBe('PENDING');
    expect((await withdrawal(id)).status).toBe('EXECUTING');
    expect((await device(`/participants/${members[2]!.id}/operations/${id}/approve`)).json.status).toBe('COMPLETED');

    const done = await waitFor(id, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect(done.history.map((s: { status: string }) => s.status)).toEqual(['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED']);
    // The callback (no HMAC: no CALLBACK_SECRET on either side) was delivered and accepted.
    await h.running.emulator.settled();
    const deliveries = (await h.call('GET', `/operations/${id}`, undefined, { base: 'emulator', basic: ADMIN })).json.deliveries;
    expect(deliveries).toEqual({ delivered: 1, failed: 0, dropped: 0 });
    const receipt = (await provider.getTransactionReceipt(done.txids[0]))!;
    expect(receipt.from).toBe(address);
    expect((await provider.getBalance(RECIPIENT)) - before).toBe(25n * 10n ** 16n);
    expect(await provider.getBalance(address)).toBe(vaultBefore - 25n * 10n ** 16n - receipt.gasUsed * receipt.gasPrice);
    const bal = await svc.call('GET', `/api/v1.0/vaults/${vaultId}/balance?assets=ETH`, { key: READ_KEY });
    expect(bal.body.balances).toEqual([{ asset: 'ETH', amount: formatAmount(await provider.getBalance(address), 18) }]);
  });

  it('a policy rule refuses: the withdrawal FAILED with the rule named as its reason', async () => {
    const set = await h.call(
      'PUT',
      `/vaults/${vaultId}/policy`,
      { rules: { amountRange: { ETH: { minimum: 0, maximum: 0.05 } } } },
      { base: 'emulator', basic: ADMIN },
    );
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    try {
      const res = await withdraw({ recipientAddress: RECIPIENT, asset: 'ETH', amount: '0.1', description: 'over the range' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const failed = await waitFor(res.body.operationID as string, (o) => o.status !== 'EXECUTING');
      expect(failed.status).toBe('FAILED');
      expect(failed.failureReason).toBe('sign operation DECLINED at the custody service (Declined by policy rule amountRange: 0.1 ETH is outside 0 … 0.05)');
    } finally {
      await h.call('PUT', `/vaults/${vaultId}/policy`, {}, { base: 'emulator', basic: ADMIN });
    }
  });

  it('a request held outside the time slots: canceled on request, or refused by the policy changed meanwhile, FAILED with the hold or the rule named', async () => {
    // One slot, the whole of the day after tomorrow (UTC): today is outside it.
    const day = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'][(new Date().getUTCDay() + 2) % 7];
    const slots = { weeklyTimeSlots: [{ days: day, timeStart: '00:00', timeEnd: '24:00' }] };
    const policy = (rules: object) => h.call('PUT', `/vaults/${vaultId}/policy`, { timeZone: 'UTC', rules }, { base: 'emulator', basic: ADMIN });
    expect((await policy(slots)).status).toBe(200);
    try {
      const first = await withdraw({ recipientAddress: RECIPIENT, asset: 'ETH', amount: '0.01', description: 'held, then canceled' });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const id = first.body.operationID as string;
      expect((await mng('GET', `/operations/sign/${id}`)).json).toMatchObject({
        status: 'PENDING',
        statusText: expect.stringMatching(/^Held by policy rule weeklyTimeSlots: outside the weekly time slots/),
      });
      expect(await pendingFor(members[0]!.id, id)).toBeUndefined();
      const canceled = await svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}/cancel`, { key: WITHDRAW_KEY, body: {} });
      expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
      expect((await withdrawal(id)).failureReason).toBe(
        'canceled on request: sign operation CANCELED at the custody service (Canceled while held by policy rule weeklyTimeSlots)',
      );

      const second = await withdraw({ recipientAddress: RECIPIENT, asset: 'ETH', amount: '0.01', description: 'held, then refused' });
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      const refused = second.body.operationID as string;
      expect((await mng('GET', `/operations/sign/${refused}`)).json.statusText).toMatch(/^Held by policy rule weeklyTimeSlots/);
      expect((await policy({ ...slots, amountRange: { ETH: { minimum: 0, maximum: 0.005 } } })).status).toBe(200);
      // No callback for a declined operation: reconciliation finds it at the custody service.
      const failed = await waitFor(refused, (o) => o.status !== 'EXECUTING');
      expect(failed.status).toBe('FAILED');
      expect(failed.failureReason).toBe('sign operation DECLINED at the custody service (Declined by policy rule amountRange: 0.01 ETH is outside 0 … 0.005)');
    } finally {
      await policy({});
    }
  });

  it('one decline: FAILED with the reason, and the next withdrawal reuses the nonce', async () => {
    const res = await withdraw({ recipientAddress: RECIPIENT, amount: '0.01', description: 'declined' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.operationID as string;
    const { nonce } = await nonceOf(id);
    expect((await device(`/participants/${members[0]!.id}/operations/${id}/approve`)).json.status).toBe('PENDING');
    expect((await device(`/participants/${members[1]!.id}/operations/${id}/decline`)).json.status).toBe('DECLINED');

    // No callback for a declined operation: reconciliation finds it at the custody service.
    const failed = await waitFor(id, (o) => o.status !== 'EXECUTING');
    expect(failed.status).toBe('FAILED');
    expect(failed.failureReason).toMatch(/^sign operation DECLINED at the custody service/);

    const next = await withdraw({ recipientAddress: RECIPIENT, amount: '0.02', description: 'after the decline' });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect((await nonceOf(next.body.operationID)).nonce).toBe(nonce);
    for (const m of [members[1]!, members[2]!]) await device(`/participants/${m.id}/operations/${next.body.operationID}/approve`);
    const done = await waitFor(next.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect((await provider.getTransaction(done.txids[0]))!.nonce).toBe(Number(nonce));
  });
});
