import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, dropPrefix, expectProblem, quorumVault, startHarness, type Harness } from './harness.js';

let h: Harness;
let vault: Awaited<ReturnType<typeof quorumVault>>;
beforeAll(async () => {
  // Every route is tried with wrong credentials here; the failed-login limit has its own tests (auth.test.ts).
  h = await startHarness({ loginLimit: { perUser: 0, perPeer: 0 } });
  vault = await quorumVault(h);
});
afterAll(async () => {
  await h.stop();
  await dropPrefix(h.redis, h.prefix);
});

describe('custody emulator errors are problem+json with the spec status codes, never 500', () => {
  it('refuses bad authentication bodies', async () => {
    expectProblem(await h.call('POST', '/auth/token', { grant_type: 'magic' }), 400, 'invalid-arguments');
    expectProblem(await h.call('POST', '/auth/token', '{"broken', { form: false }), 400, 'malformed-body');
    expectProblem(await h.api('POST', '/auth/users', { name: '', password: 'x', role: 'Trader' }), 400);
    expectProblem(await h.api('PUT', '/auth/users/ghost/password', { password: 'x', mustChangePassword: true }), 404);
    expectProblem(await h.api('PUT', '/auth/users/so/password', { password: 'x', mustChangePassword: 'maybe' }), 400);
    expectProblem(await h.api('POST', '/auth/apikeys', { client_id: 'k', client_role: 'Trader', scope: '/mng', grant_type: 'password' }), 400);
    expectProblem(await h.api('DELETE', '/auth/users/so'), 400, 'last-super-user');
  });

  it('refuses bad account and participant input', async () => {
    expectProblem(await h.api('POST', '/accounts', {}), 400);
    expectProblem(await h.api('POST', '/accounts', { name: vault.account.name }), 409, 'account-exists');
    expectProblem(await h.api('GET', '/accounts?sort=Color:asc'), 400);
    expectProblem(await h.api('GET', '/accounts?limit=abc'), 400);
    expectProblem(await h.api('GET', '/accounts?surprise=1'), 400);
    expectProblem(await h.api('GET', '/accounts/nope'), 404);
    expectProblem(await h.api('DELETE', `/accounts/${vault.account.id}`), 403, 'account-not-empty');
    expectProblem(await h.api('PUT', `/accounts/${vault.account.id}`, { name: vault.account.name, isGlobal: true }), 409, 'global-flag-locked');
    expectProblem(await h.api('POST', `/accounts/${vault.account.id}/participants`, { name: 'x', email: 'not-an-email', role: 'r' }), 406, 'invalid-email');
    expectProblem(await h.api('POST', `/accounts/${vault.account.id}/participants`, { name: 'alice', email: 'alice@example.com', role: 'r' }), 409);
    expectProblem(await h.api('POST', '/accounts/nope/participants', { name: 'x', email: 'x@example.com', role: 'r' }), 404);
    expectProblem(await h.api('POST', `/accounts/${vault.account.id}/participants`, { name: 'x' }), 400);
    expectProblem(await h.api('PUT', `/participants/${vault.members[0]!.id}`, { status: 'SLEEPING' }), 400);
    expectProblem(await h.api('DELETE', `/participants/${vault.members[0]!.id}`), 403, 'participant-has-vaults');
    expectProblem(await h.api('GET', `/accounts/${vault.account.id}/participants?withGlobal=perhaps`), 400);
  });

  it('refuses bad vault, keychain and member input', async () => {
    const create = (body: Record<string, unknown>) =>
      h.api('POST', `/accounts/${vault.account.id}/vaults`, {
        name: 'v',
        cryptoKind: 'ECDSA',
        groups: [{ name: 'g', requiredApprovals: 1, members: [{ id: vault.members[0]!.id }] }],
        ...body,
      });
    expectProblem(await create({ groups: [{ name: 'g', requiredApprovals: 3, members: [{ id: vault.members[0]!.id }] }] }), 400, 'invalid-groups');
    expectProblem(await create({ cryptoKind: 'RSA' }), 400);
    expectProblem(await create({ groups: [{ name: 'g', requiredApprovals: 1, members: [{ id: 'ghost' }] }] }), 404);
    expectProblem(await create({ cryptoKind: 'EDDSA', hierarchy: 'BIP44' }), 400);
    expectProblem(await create({ name: 'hot' }), 409, 'vault-exists');
    expectProblem(await h.api('PUT', `/vaults/${vault.vaultId}`, { name: 'only-a-name' }), 400);
    expectProblem(await h.api('GET', `/vaults/${vault.vaultId}/coins`), 406, 'not-supported');
    expectProblem(await h.api('GET', `/vaults/${vault.vaultId}/derivation?derivationPath=zz`), 400);
    const hd = (await create({ name: 'hd', hierarchy: 'BIP44', coinType: 60 })).json.id;
    await h.device('POST', `/participants/${vault.members[0]!.id}/vaults/${hd}/join`);
    for (const path of ['m/2147483648', "m/0'/9999999999", 'm/x']) {
      expectProblem(await h.api('GET', `/vaults/${hd}/derivation?derivationPath=${encodeURIComponent(path)}`), 400);
      expectProblem(await h.api('POST', `/vaults/${hd}/derivations`, { pathToDeriveFrom: path, hardDerivation: false, childIndex: 0 }), 400);
    }
    expect((await h.api('GET', `/vaults/${hd}/derivation?derivationPath=${encodeURIComponent("m/44'/60'/0'/0/7")}`)).json.publicKey).toMatch(/^3056/);
    expectProblem(await h.api('POST', `/vaults/${hd}/derivations`, { pathToDeriveFrom: 'm', hardDerivation: false, childIndex: 2 ** 31 }), 400);
    expectProblem(await h.api('GET', `/vaults/${hd}/coins/60/accounts/0/chains/sideways/addresses`), 400);
    expectProblem(await h.api('GET', `/vaults/${hd}/coins/99999999999/accounts`), 400);
    expectProblem(await h.api('GET', `/vaults/${hd}/coins/61/accounts`), 404);
    for (const coinType of ['60a', '-1', '', ' 2', '1.5', 1.5, true, null]) expectProblem(await h.api('POST', `/vaults/${hd}/coins`, { coinType }), 400);
    expectProblem(await create({ name: 'hd2', hierarchy: 'BIP44', coinType: 'sixty' }), 400);
    expectProblem(await create({ name: 'hd3', hierarchy: 'BIP44', coinType: 60, subAccountsToDerive: 'one' }), 400);
    expectProblem(await h.api('GET', `/vaults/${hd}/coins/60/accounts/7/backup`), 404);
    expectProblem(await h.api('GET', `/vaults/${hd}/backup/zz`), 400);
    expectProblem(await h.api('GET', '/vaults/nope/publickey'), 404);
    expectProblem(await h.api('PUT', `/vaults/${vault.vaultId}/members/${vault.members[0]!.id}/status`, { status: 'ASLEEP' }), 400);
    expectProblem(await h.api('PUT', `/vaults/${vault.vaultId}/members/${vault.members[0]!.id}/status?force=maybe`, { status: 'DEACTIVATED' }), 400);
    expectProblem(await h.api('PUT', `/vaults/${vault.vaultId}/members/ghost/status`, { status: 'DEACTIVATED' }), 404);
    expectProblem(await h.api('POST', `/vaults/${vault.vaultId}/approval_groups/none/members`, { participantID: vault.members[0]!.id }), 404);
    expectProblem(
      await h.api('POST', `/vaults/${vault.vaultId}/approval_groups/approvers/members`, { participantID: vault.members[0]!.id }),
      406,
      'already-member',
    );
  });

  it('refuses bad sign requests and unknown operations', async () => {
    const key = (await h.api('GET', `/vaults/${vault.vaultId}/publickey`)).json.publicKey;
    const good = { description: 'x', dataToSign: ['11'.repeat(32)], publicKeys: [key], ledger: 'ETH', providerData: '' };
    const bad = [
      { ...good, dataToSign: ['abcd'] },
      // Plain data is signed whole by EdDSA keys only; an ECDSA key signs 32-byte digests.
      { ...good, dataToSign: ['ab'.repeat(300)], ledgerHashAlgorithm: 'PLAIN' },
      { ...good, publicKeys: [] },
      { ...good, publicKeys: ['zz'] },
      { ...good, publicKeys: ['02' + '11'.repeat(32)] },
      { ...good, rawTransactions: ['00'], ledgerHashAlgorithm: 'MD5' },
      { ...good, rawTransactions: ['00'], ledgerHashAlgorithm: 'SHA256' },
      { ...good, callbackUrl: 'file:///etc/passwd' },
      [],
    ];
    for (const body of bad) expectProblem(await h.api('POST', `/vaults/${vault.vaultId}/sign`, body), 400);
    expectProblem(await h.api('POST', '/vaults/nope/sign', good), 404);
    for (const path of ['/operations/sign/nope', '/operations/addmember/nope', '/operations/nope']) expectProblem(await h.api('GET', path), 404);
    expectProblem(await h.api('POST', '/operations/sign/nope/resend'), 404);
    expectProblem(await h.api('POST', '/operations/nope/cancel'), 404);
    expectProblem(await h.api('GET', `/accounts/${vault.account.id}/operations?status=DONE`), 400);
    expectProblem(await h.api('GET', '/no/such/route'), 404, 'no-route');
  });

  it('answers status without a token in the 1.0.2106 shape (no top-level healthy) and refuses a second reload within 5 minutes (420)', async () => {
    const status = await h.call('GET', '/status?withDetails=true');
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ keyservice: { healthy: true }, db: { healthy: true, schemaVersion: 'redis' }, nativeCrypto: { healthy: true } });
    expect(status.json).not.toHaveProperty('healthy');
    // The release in the service's form, which clients parse (the samples: /\d+\.\d+\.(\d+)\./); what it is, apart.
    expect(status.json.version).toMatch(/^1\.0\.2106\.\d+$/);
    expect(status.json.emulator).toContain('not a custody service');
    expect((await h.call('GET', '/status?withDetails=true', undefined, { base: 'legacy' })).json.version).toMatch(/^1\.0\.1905\.\d+$/);
    expectProblem(await h.call('GET', '/status?withDetails=sure'), 400);
    expectProblem(await h.call('POST', '/reloadconfig'), 401);
    expect((await h.api('POST', '/reloadconfig')).status).toBe(200);
    const again = await h.api('POST', '/reloadconfig');
    expectProblem(again, 420, 'too-many-requests');
    expect(again.json).toMatchObject({ version: expect.any(String), keyservice: { healthy: true } });
  });

  it('guards the emulator-only routes with the emulator admin credentials and validates their bodies', async () => {
    const m = vault.members[0]!;
    const routes: [string, string, unknown?][] = [
      ['POST', `/participants/${m.id}/activate`, { activationCode: '1' }],
      ['POST', `/participants/${m.id}/vaults/${vault.vaultId}/join`],
      ['GET', `/participants/${m.id}/operations`],
      ['POST', `/participants/${m.id}/operations/x/approve`],
      ['POST', `/participants/${m.id}/operations/x/decline`],
      ['GET', '/approver-policy'],
      ['PUT', '/approver-policy', {}],
      ['GET', '/faults'],
      ['PUT', '/faults', { faults: {} }],
    ];
    for (const [method, path, body] of routes) {
      expectProblem(await h.call(method, path, body, { base: 'emulator' }), 401, 'emulator-admin-required');
      expectProblem(await h.call(method, path, body, { base: 'emulator', basic: { user: ADMIN.user, password: 'wrong' } }), 401);
      // A custody token is no emulator credential.
      expectProblem(await h.call(method, path, body, { base: 'emulator', token: h.token }), 401);
    }
    expectProblem(await h.device('PUT', '/approver-policy', { approve: 'sometimes' }), 400);
    expectProblem(await h.device('PUT', '/faults', { faults: { duplicate: 0 } }), 400);
    // The approver faults (set in process only) are refused here, not silently ignored.
    for (const faults of [{ end: 'DECLINED' }, { holdApprovals: true }, { notifyEnd: true }]) expectProblem(await h.device('PUT', '/faults', { faults }), 400);
    expectProblem(await h.device('PUT', '/faults', { vaultId: 'nope', faults: {} }), 404);
    expectProblem(await h.device('POST', `/participants/${m.id}/activate`, {}), 400);
    expectProblem(await h.device('POST', `/participants/${m.id}/activate`, { activationCode: '123' }), 403);
    expectProblem(await h.device('POST', `/participants/${m.id}/operations/nope/approve`), 404);
  });
});
