import { createHash, randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { CustodyClient } from '../../src/custody/custody-client.js';
import { CustodyNotFoundError, CustodyRequestError } from '../../src/custody/errors.js';
import { ADMIN, dropPrefix, expectProblem, expectValidSignature, quorumVault, startHarness, startReceiver } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('custody emulator older base path', () => {
  it('serves 1.0.1905 under /casp: form-encoded login on the deprecated path, paged lists, the account in an array', async () => {
    const h = await startHarness();
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const login = await h.call(
      'POST',
      '/auth/tokens',
      { grant_type: 'password', client_id: 'x', scope: '/mng' },
      { base: 'legacy', form: true, basic: { user: ADMIN.user, password: ADMIN.password } },
    );
    expect(login.status).toBe(201);
    const token = login.json.access_token as string;
    const created = await h.call('POST', '/accounts', { name: 'old' }, { base: 'legacy', token });
    expect(created.status).toBe(201);
    const listed = await h.call('GET', '/accounts?withStats=true&filter=OL&sort=Name:desc&skip=0&limit=5', undefined, { base: 'legacy', token });
    expect(listed.json).toEqual({
      totalItems: 1,
      items: [
        {
          id: created.json.id,
          name: 'old',
          isGlobal: false,
          stats: { participants: { total: 0, inactive: 0 }, operations: { total: 0, pending: 0 }, vaults: { total: 0, inactive: 0 } },
        },
      ],
    });
    expect((await h.call('GET', `/accounts/${created.json.id}`, undefined, { base: 'legacy', token })).json).toHaveLength(1);
    expectProblem(await h.call('GET', '/accounts', undefined, { base: 'legacy' }), 401);
    // Same state behind both bases.
    expect((await h.api('GET', `/accounts/${created.json.id}`)).json).toEqual({ id: created.json.id, name: 'old', isGlobal: false });
  });

  it('serves 1.0.1811 when configured: plain-array lists, statsOperation and statsVaults, tokens without role or refresh token', async () => {
    const h = await startHarness({ legacyRevision: '1.0.1811' });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const login = await h.login(ADMIN.user, ADMIN.password, 'legacy');
    expect(login.json.refresh_token).toBeUndefined();
    expect(login.json.role).toBeUndefined();
    const token = login.json.access_token as string;
    const { account, members } = await quorumVault(h);
    const accounts = await h.call('GET', '/accounts?withStats=true', undefined, { base: 'legacy', token });
    expect(Array.isArray(accounts.json)).toBe(true);
    expect(accounts.json[0].stats).toEqual({
      participants: { total: 3, inactive: 0 },
      statsOperation: { total: 3, pending: 0 },
      statsVaults: { total: 1, inactive: 0 },
    });
    const people = await h.call('GET', `/accounts/${account.id}/participants?sort=Name:desc`, undefined, { base: 'legacy', token });
    expect(people.json.map((p: { name: string }) => p.name)).toEqual(['carol', 'bob', 'alice']);
    expect(people.json[0].vaults).toHaveLength(1);
    const one = await h.call('GET', `/participants/${members[0]!.id}?withVaults=true`, undefined, { base: 'legacy', token });
    expect(one.json.vaults[0].publicKey).toMatch(/^3056/);
    // The 1811 user roles.
    expect((await h.call('POST', '/auth/users', { name: 'u', password: 'p', role: 'USER' }, { base: 'legacy', token })).status).toBe(201);
  });
});

describe('the existing connector against the emulator', () => {
  it('requests a signature, reads the operation, asks for a resend and reads the vault key, with an API key as bearer', async () => {
    const receiver = await startReceiver();
    const apiKey = randomBytes(24).toString('hex');
    const h = await startHarness({ callbackBaseUrl: receiver.url, apiKey: { clientId: 'connector', key: apiKey } });
    cleanup.push(receiver.close, () => dropPrefix(h.redis, h.prefix), h.stop);
    const { vaultId, members } = await quorumVault(h);
    const client = new CustodyClient({ baseUrl: h.running.url, apiKey, fetch, logger: pino({ level: 'silent' }), retries: 0 });

    const { publicKey } = await client.vaultPublicKey(vaultId);
    const preimage = randomBytes(100);
    const digest = createHash('sha256').update(createHash('sha256').update(preimage).digest()).digest('hex');
    const { operationID } = await client.requestSign(vaultId, {
      description: 'withdrawal',
      dataToSign: [digest],
      publicKeys: [publicKey],
      rawTransactions: [preimage.toString('hex')],
      ledgerHashAlgorithm: 'DOUBLE_SHA256',
      ledger: 'btcregtest',
      providerData: '{"operation":"w-1"}',
    });
    expect((await client.getSignOperation(operationID)).status).toBe('PENDING');
    await expect(client.resend(operationID)).rejects.toBeInstanceOf(CustodyRequestError);

    for (const m of members.slice(0, 2)) await h.device('POST', `/participants/${m.id}/operations/${operationID}/approve`);
    const op = await client.getSignOperation(operationID);
    expect(op).toMatchObject({ operationID, status: 'COMPLETED', isApproved: true, dataToSign: [digest], publicKeys: [publicKey] });
    expectValidSignature(publicKey, digest, op.signatures[0]!, op.v[0]!);
    const [cb] = await receiver.waitFor(1);
    expect(cb!.ledgerId).toBe('btcregtest');
    await client.resend(operationID);
    await receiver.waitFor(2);

    await expect(client.getSignOperation('nope')).rejects.toBeInstanceOf(CustodyNotFoundError);
    expect(await client.health()).toEqual({ healthy: true });
    const stranger = new CustodyClient({ baseUrl: h.running.url, apiKey: 'wrong-key', fetch, logger: pino({ level: 'silent' }), retries: 0 });
    await expect(stranger.getSignOperation(operationID)).rejects.toMatchObject({ errCode: 'ERR_CUSTODY_AUTH' });
  });

  it('reads a request held by the weekly time slots as PENDING with the rule named, and cancels it', async () => {
    // Saturday 2026-11-28 12:00 UTC; the slots are working days.
    const h = await startHarness({ clock: { now: Date.UTC(2026, 10, 28, 12, 0) } });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const policy = { rules: { weeklyTimeSlots: [{ days: 'MON-FRI', timeStart: '08:00', timeEnd: '20:00' }] } };
    const { vaultId } = await quorumVault(h, { policy });
    const client = new CustodyClient({ baseUrl: h.running.url, apiKey: h.token, fetch, logger: pino({ level: 'silent' }), retries: 0 });
    const { publicKey } = await client.vaultPublicKey(vaultId);
    const digest = createHash('sha256').update(randomBytes(32)).digest('hex');
    const { operationID } = await client.requestSign(vaultId, {
      description: 'withdrawal',
      dataToSign: [digest],
      publicKeys: [publicKey],
      rawTransactions: [],
      ledgerHashAlgorithm: 'SHA256',
      ledger: 'ETHDEV',
      providerData: '{"operation":"w-2"}',
    });
    expect(await client.getSignOperation(operationID)).toMatchObject({
      status: 'PENDING',
      statusText: 'Held by policy rule weeklyTimeSlots: outside the weekly time slots (MON-FRI 08:00-20:00, UTC); the next slot opens 2026-11-30T08:00:00.000Z',
      signatures: [],
    });
    await client.cancelOperation(operationID);
    expect(await client.getSignOperation(operationID)).toMatchObject({ status: 'CANCELED', statusText: 'Canceled while held by policy rule weeklyTimeSlots' });
    await expect(client.cancelOperation(operationID)).rejects.toMatchObject({ problem: { upstreamStatus: 409 } });
  });
});
