import { scryptSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenHash } from '../../src/dev/custody-emulator/auth.js';
import { emulatorKeys } from '../../src/platform/redis-keys.js';
import { ADMIN, dropPrefix, expectProblem, startHarness, type Harness } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(clock?: { now: number }): Promise<Harness> {
  const h = await startHarness({ clock });
  cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
  return h;
}

describe('custody emulator authentication', () => {
  it('costs exactly one password hash per login, whether the user exists, is unknown or is disabled', async () => {
    let hashes = 0;
    const h = await startHarness({
      passwordHasher: (password, salt) => {
        hashes++;
        return scryptSync(password, salt, 32);
      },
    });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    expect((await h.api('POST', '/auth/users', { name: 'dave', password: 'dave-password', role: 'Trader' })).status).toBe(201);
    expect((await h.api('PUT', '/auth/users/dave', { enabled: false })).status).toBe(200);
    const cost = async (attempt: () => Promise<{ status: number }>) => {
      const before = hashes;
      const res = await attempt();
      return { status: res.status, hashes: hashes - before };
    };
    expect(await cost(() => h.login(ADMIN.user, 'wrong-password'))).toEqual({ status: 401, hashes: 1 });
    expect(await cost(() => h.login('nobody', 'wrong-password'))).toEqual({ status: 401, hashes: 1 });
    expect(await cost(() => h.login('dave', 'dave-password'))).toEqual({ status: 401, hashes: 1 });
    expect(await cost(() => h.login())).toEqual({ status: 201, hashes: 1 });
    // The password change with HTTP Basic checks the password the same way.
    expect(await cost(() => h.call('PUT', '/auth/password', { value: 'x' }, { basic: { user: 'nobody', password: 'p' } }))).toEqual({ status: 401, hashes: 1 });
  });

  it('limits failed logins per user name, known or not: 429 with Retry-After until the window ends', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const h = await startHarness({ clock, loginLimit: { perUser: 3, perPeer: 100, windowSeconds: 60 } });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    expect((await h.api('POST', '/auth/users', { name: 'trader1', password: 'trader-password', role: 'Trader' })).status).toBe(201);
    for (const user of [ADMIN.user, 'ghost']) {
      for (let i = 0; i < 3; i++) expectProblem(await h.login(user, 'wrong-password'), 401, 'invalid-credentials');
    }
    clock.now += 15_000;
    for (const user of [ADMIN.user, 'ghost']) expectProblem(await h.login(user, user === 'ghost' ? 'x' : ADMIN.password), 429, 'too-many-login-failures');
    const refused = await fetch(`${h.running.url}/auth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password' }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    // The password change with HTTP Basic is held back too; another user of the same address is not.
    expectProblem(await h.call('PUT', '/auth/password', { value: 'new-password' }, { basic: ADMIN }), 429);
    expect((await h.login('trader1', 'trader-password')).status).toBe(201);
    clock.now += 45_000;
    expect((await h.login()).status).toBe(201);
    // A right password clears the name's failures.
    for (let i = 0; i < 2; i++) expectProblem(await h.login(ADMIN.user, 'wrong-password'), 401);
    expect((await h.login()).status).toBe(201);
    for (let i = 0; i < 2; i++) expectProblem(await h.login(ADMIN.user, 'wrong-password'), 401);
    expect((await h.login()).status).toBe(201);
  });

  it('counts wrong credentials on the emulator-only routes too, apart from the custody logins', async () => {
    const h = await startHarness({ loginLimit: { perUser: 2, perPeer: 100, windowSeconds: 60 } });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const wrong = { user: ADMIN.user, password: 'wrong-password' };
    for (let i = 0; i < 2; i++) expectProblem(await h.call('GET', '/approver-policy', undefined, { base: 'emulator', basic: wrong }), 401);
    // No credentials at all is no guess.
    for (let i = 0; i < 3; i++) expectProblem(await h.call('GET', '/approver-policy', undefined, { base: 'emulator' }), 401);
    expectProblem(await h.device('GET', '/approver-policy'), 429, 'too-many-login-failures');
    expect((await h.login()).status).toBe(201);
  });

  it('limits failed logins per peer address, whatever the names', async () => {
    const h = await startHarness({ loginLimit: { perUser: 100, perPeer: 4, windowSeconds: 60 } });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    for (const user of ['a', 'b', 'c', ADMIN.user]) expectProblem(await h.login(user, 'wrong-password'), 401);
    const refused = await h.login();
    expectProblem(refused, 429, 'too-many-login-failures');
    expect(refused.json.details).toContain('address');
  });

  it('logs the administrator in with HTTP Basic and a form body; the token opens the management routes', async () => {
    const h = await setup();
    const res = await h.login();
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ token_type: 'Bearer', expires_in: 1200, scope: '/mng', role: 'SUPER_USER' });
    expect(res.json.access_token).toEqual(expect.any(String));
    expect(res.json.refresh_token).toEqual(expect.any(String));
    expect((await h.call('GET', '/accounts', undefined, { token: res.json.access_token })).status).toBe(200);
    // JSON body with username and password works as well, on the deprecated path too.
    const json = await h.call('POST', '/auth/tokens', { grant_type: 'password', username: ADMIN.user, password: ADMIN.password });
    expect(json.status).toBe(201);

    expectProblem(await h.login(ADMIN.user, 'wrong'), 401, 'invalid-credentials');
    expectProblem(await h.login('nobody', 'x'), 401, 'invalid-credentials');
    expectProblem(await h.call('POST', '/auth/token', { grant_type: 'password' }), 401);
    expectProblem(await h.call('GET', '/accounts'), 401, 'unauthorized');
    expectProblem(await h.call('GET', '/accounts', undefined, { token: 'not-a-token' }), 401);
  });

  it('expires access tokens after 20 minutes and renews them with the refresh token, once', async () => {
    const clock = { now: Date.now() };
    const h = await setup(clock);
    const first = (await h.login()).json;
    clock.now += 19 * 60 * 1000;
    expect((await h.call('GET', '/accounts', undefined, { token: first.access_token })).status).toBe(200);
    clock.now += 2 * 60 * 1000;
    expectProblem(await h.call('GET', '/accounts', undefined, { token: first.access_token }), 401);

    const login = await h.login();
    const renewed = await h.call('POST', '/auth/token', { grant_type: 'refresh_token', refreshtoken: login.json.refresh_token }, { form: true });
    expect(renewed.status).toBe(201);
    expect(renewed.json.access_token).not.toBe(login.json.access_token);
    expect((await h.call('GET', '/accounts', undefined, { token: renewed.json.access_token })).status).toBe(200);
    // A refresh token is spent by its use.
    expectProblem(await h.call('POST', '/auth/token', { grant_type: 'password', refreshtoken: login.json.refresh_token }), 401, 'invalid-refresh-token');
    // A refresh token is no access token.
    expectProblem(await h.call('GET', '/accounts', undefined, { token: renewed.json.refresh_token }), 401);
  });

  it('keeps an access token valid for its 20 minutes of a pinned emulator clock, whatever the wall clock says', async () => {
    // Pinned well before the wall clock: Redis must keep the token as long as the emulator's clock says.
    const clock = { now: Date.parse('2020-01-01T00:00:00Z') };
    const h = await setup(clock);
    const token = (await h.login()).json.access_token as string;
    // Redis keeps the token for the emulator clock's 20 minutes (measured on the wall clock, it would already be gone).
    expect(await h.redis.pttl(emulatorKeys(h.prefix).token(tokenHash(token)))).toBeGreaterThan(19 * 60 * 1000);
    expect((await h.call('GET', '/accounts', undefined, { token })).status).toBe(200);
    clock.now += 19 * 60 * 1000;
    expect((await h.call('GET', '/accounts', undefined, { token })).status).toBe(200);
    clock.now += 2 * 60 * 1000;
    expectProblem(await h.call('GET', '/accounts', undefined, { token }), 401);
  });

  it("acts on a user's access token with the user's current role: a demoted Super_User loses user and API-key administration at once", async () => {
    const h = await setup();
    expect((await h.api('POST', '/auth/users', { name: 'bob', password: 'bob-password', role: 'Super_User' })).status).toBe(201);
    const bob = (await h.login('bob', 'bob-password')).json.access_token as string;
    const mint = (clientId: string) =>
      h.call('POST', '/auth/apikeys', { client_id: clientId, client_role: 'Super_User', scope: '/mng', grant_type: 'client_credentials' }, { token: bob });
    expect((await h.call('GET', '/auth/users', undefined, { token: bob })).status).toBe(200);

    expect((await h.api('PUT', '/auth/users/bob', { role: 'Trader' })).status).toBe(200);
    expectProblem(await mint('bob-key'), 403, 'role-not-allowed');
    expectProblem(await h.call('POST', '/auth/users', { name: 'eve', password: 'eve-password', role: 'Super_User' }, { token: bob }), 403, 'role-not-allowed');
    expect((await h.api('GET', '/auth/apikeys')).json).toEqual([]);
    // The token itself stays valid, for what a Trader may do.
    expect((await h.call('GET', '/accounts', undefined, { token: bob })).status).toBe(200);

    // Promoted again (on the older path), the same token administers again.
    expect((await h.api('PUT', '/auth/bob', { role: 'Super_User' })).status).toBe(200);
    expect((await mint('bob-key')).status).toBe(201);
  });

  it('creates, lists, uses and revokes API keys valid for a year', async () => {
    const clock = { now: Date.now() };
    const h = await setup(clock);
    const created = await h.api('POST', '/auth/apikeys', { client_id: 'connector', client_role: 'Trader', scope: '/mng', grant_type: 'client_credentials' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ token_type: 'Bearer', expires_in: 365 * 24 * 3600, scope: '/mng', role: 'TRADER' });
    expect(created.json.refresh_token).toBeUndefined();
    const key = created.json.access_token as string;
    expect((await h.call('GET', '/accounts', undefined, { token: key })).status).toBe(200);
    expectProblem(
      await h.api('POST', '/auth/apikeys', { client_id: 'connector', client_role: 'Trader', scope: '/mng', grant_type: 'client_credentials' }),
      409,
    );
    expectProblem(await h.api('POST', '/auth/apikeys', { client_id: 'x', client_role: 'Trader', scope: '/other', grant_type: 'client_credentials' }), 400);
    const listed = await h.api('GET', '/auth/apikeys');
    expect(listed.json).toEqual([{ clientId: 'connector', tokenType: 'BEARER', expiry_in: 365 * 24 * 3600, scope: '/mng' }]);
    // A Trader key may not manage keys or users.
    expectProblem(await h.call('GET', '/auth/apikeys', undefined, { token: key }), 403, 'role-not-allowed');
    clock.now += 364 * 24 * 3600 * 1000;
    expect((await h.call('GET', '/accounts', undefined, { token: key })).status).toBe(200);
    clock.now -= 364 * 24 * 3600 * 1000;
    expect((await h.api('DELETE', '/auth/apikeys/connector')).status).toBe(200);
    expectProblem(await h.call('GET', '/accounts', undefined, { token: key }), 401);
    expectProblem(await h.api('DELETE', '/auth/apikeys/connector'), 404);
  });

  it('makes a user whose password must change set a new one before logging in', async () => {
    const h = await setup();
    expect((await h.api('POST', '/auth/users', { name: 'trader1', password: 'first-pass', role: 'Trader' })).status).toBe(201);
    expectProblem(await h.api('POST', '/auth/users', { name: 'trader1', password: 'x', role: 'Trader' }), 409);
    expectProblem(await h.api('POST', '/auth/users', { name: 'x', password: 'x', role: 'Boss' }), 400);
    expect((await h.api('PUT', '/auth/users/trader1/password', { password: 'reset-pass', mustChangePassword: true })).status).toBe(200);

    // 1.0.2106 answers 400; the older base answers 401, as the published samples show.
    expectProblem(await h.login('trader1', 'reset-pass'), 400, 'password-must-be-changed');
    expectProblem(await h.login('trader1', 'reset-pass', 'legacy'), 401, 'password-must-be-changed');
    expectProblem(await h.call('PUT', '/auth/users/password', { value: 'new-pass' }, { basic: { user: 'trader1', password: 'wrong' } }), 401);
    expect((await h.call('PUT', '/auth/users/password', { value: 'new-pass' }, { basic: { user: 'trader1', password: 'reset-pass' } })).status).toBe(200);
    const ok = await h.login('trader1', 'new-pass');
    expect(ok.status).toBe(201);
    expect(ok.json.role).toBe('TRADER');
    expectProblem(await h.call('POST', '/auth/users', { name: 'y', password: 'y', role: 'Trader' }, { token: ok.json.access_token }), 403);

    const users = await h.api('GET', '/auth/users');
    expect(users.json).toEqual([
      { name: 'so', enabled: true, role: 'Super_User' },
      { name: 'trader1', enabled: true, role: 'Trader' },
    ]);
    // Disabling a user ends its tokens; revoking by owner too.
    expect((await h.api('PUT', '/auth/trader1', { active: false })).status).toBe(200);
    expectProblem(await h.call('GET', '/accounts', undefined, { token: ok.json.access_token }), 401);
    expectProblem(await h.login('trader1', 'new-pass'), 401);
    const admin2 = (await h.login()).json.access_token;
    expect((await h.api('DELETE', `/auth/token/${ADMIN.user}`)).status).toBe(200);
    expectProblem(await h.call('GET', '/accounts', undefined, { token: admin2 }), 401);
  });
});
