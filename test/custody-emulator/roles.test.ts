import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ROLE_RULES, roleRule } from '../../src/dev/custody-emulator/roles.js';
import { ADMIN, dropPrefix, expectProblem, quorumVault, startHarness, type Answer } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

type Role = 'Super_User' | 'Security_Officer' | 'Trader';
const ROLES: Role[] = ['Super_User', 'Security_Officer', 'Trader'];
const digest = () => randomUUID().replaceAll('-', '').repeat(2);

describe('custody emulator role rules', () => {
  it('lets each role call what its rule allows and answers 403 naming the roles needed otherwise', async () => {
    const h = await startHarness();
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const { account, vaultId } = await quorumVault(h);
    const key = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;

    const tokens = { Super_User: h.token } as Record<Role, string>;
    for (const role of ['Security_Officer', 'Trader'] as const) {
      expect((await h.api('POST', '/auth/users', { name: role.toLowerCase(), password: `${role}-password`, role })).status).toBe(201);
      tokens[role] = (await h.login(role.toLowerCase(), `${role}-password`)).json.access_token;
    }
    // An API key acts with the role it was created with.
    const traderKey = (
      await h.api('POST', '/auth/apikeys', { client_id: 'trading-bot', client_role: 'Trader', scope: '/mng', grant_type: 'client_credentials' })
    ).json.access_token as string;

    const unique = () => `n-${randomUUID().slice(0, 8)}`;
    const representatives: { what: string; allowed: Role[]; call: (token: string) => Promise<Answer> }[] = [
      { what: 'reading', allowed: ROLES, call: (t) => h.call('GET', '/accounts', undefined, { token: t }) },
      { what: 'reading', allowed: ROLES, call: (t) => h.call('GET', `/vaults/${vaultId}/publickey`, undefined, { token: t }) },
      { what: 'user administration', allowed: ['Super_User'], call: (t) => h.call('GET', '/auth/users', undefined, { token: t }) },
      { what: 'user administration', allowed: ['Super_User'], call: (t) => h.call('PUT', '/auth/nobody', { active: true }, { token: t }) },
      { what: 'API key administration', allowed: ['Super_User'], call: (t) => h.call('GET', '/auth/apikeys', undefined, { token: t }) },
      { what: 'reloading the configuration', allowed: ['Super_User'], call: (t) => h.call('POST', '/reloadconfig', undefined, { token: t }) },
      {
        what: 'account and participant administration',
        allowed: ['Super_User', 'Security_Officer'],
        call: (t) => h.call('POST', '/accounts', { name: unique() }, { token: t }),
      },
      {
        what: 'account and participant administration',
        allowed: ['Super_User', 'Security_Officer'],
        call: (t) => h.call('POST', `/accounts/${account.id}/participants`, { name: unique(), email: 'p@example.com', role: 'approver' }, { token: t }),
      },
      {
        what: 'vault administration',
        allowed: ['Super_User', 'Security_Officer'],
        // An empty body: refused by the guard (403) or by the route's validation (400).
        call: (t) => h.call('POST', `/accounts/${account.id}/vaults`, {}, { token: t }),
      },
      { what: 'new keys of a vault', allowed: ROLES, call: (t) => h.call('POST', `/vaults/${vaultId}/derivations`, {}, { token: t }) },
      {
        what: 'signing',
        allowed: ['Super_User', 'Trader'],
        call: (t) => h.call('POST', `/vaults/${vaultId}/sign`, { description: 'w', dataToSign: [digest()], publicKeys: [key] }, { token: t }),
      },
      { what: 'this route', allowed: ['Super_User'], call: (t) => h.call('POST', '/no-such-route', {}, { token: t }) },
    ];
    for (const r of representatives) {
      for (const role of ROLES) {
        const res = await r.call(tokens[role]);
        if (r.allowed.includes(role)) {
          expect([401, 403], `${r.what} as ${role}: ${JSON.stringify(res.json)}`).not.toContain(res.status);
        } else {
          expectProblem(res, 403, 'role-not-allowed');
          expect(res.json.details).toBe(`${r.what} needs the role ${r.allowed.join(' or ')}; this token acts as ${role}.`);
        }
      }
    }
    // A few that succeed outright, on both bases; the API key with its own role.
    expect((await h.call('POST', '/accounts', { name: unique() }, { token: tokens.Security_Officer })).status).toBe(201);
    expectProblem(await h.call('POST', '/accounts', { name: unique() }, { token: tokens.Trader, base: 'legacy' }), 403, 'role-not-allowed');
    expectProblem(await h.call('POST', '/accounts', { name: unique() }, { token: traderKey }), 403, 'role-not-allowed');
    expect(
      (await h.call('POST', `/vaults/${vaultId}/sign`, { description: 'w', dataToSign: [digest()], publicKeys: [key] }, { token: traderKey })).status,
    ).toBe(200);
    expectProblem(
      await h.call(
        'POST',
        `/vaults/${vaultId}/sign`,
        { description: 'w', dataToSign: [digest()], publicKeys: [key] },
        { token: tokens.Security_Officer, base: 'legacy' },
      ),
      403,
    );

    // Without a token: 401 first, whatever the role rule; status and login need none.
    expectProblem(await h.call('POST', '/accounts', { name: unique() }), 401);
    expect((await h.call('GET', '/status')).status).toBe(200);
    // Token revocation: one's own tokens, another owner's only as a Super_User.
    expectProblem(await h.call('DELETE', `/auth/token/${ADMIN.user}`, undefined, { token: tokens.Trader }), 403, 'role-not-allowed');
    expect((await h.call('DELETE', '/auth/token/trader', undefined, { token: tokens.Trader })).status).toBe(200);
    expectProblem(await h.call('GET', '/accounts', undefined, { token: tokens.Trader }), 401);
  });

  it('matches paths as the routes do: case-insensitive, an optional trailing slash, one rule per request', () => {
    expect(roleRule('post', '/ACCOUNTS/').what).toBe('account and participant administration');
    expect(roleRule('PUT', '/auth/users/password').roles).toBe('none');
    expect(roleRule('PUT', '/auth/users/bob').what).toBe('user administration');
    expect(roleRule('HEAD', '/vaults/x/publickey').what).toBe('reading');
    expect(roleRule('POST', '/vaults/x/sign/extra').what).toBe('this route');
    expect(ROLE_RULES.at(-1)?.roles).toEqual(['Super_User']);
  });
});
