import { afterEach, describe, expect, it } from 'vitest';
import { dropPrefix, startHarness } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('custody emulator lists', () => {
  it('filters, sorts, skips and limits accounts and participants; withStats, withGlobal and withDeactivated add what they name', async () => {
    const h = await startHarness();
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const provider = (await h.api('POST', '/accounts', { name: 'Provider', isGlobal: true })).json;
    const client = (await h.api('POST', '/accounts', { name: 'Client A' })).json;
    await h.api('POST', '/accounts', { name: 'Client B' });

    const names = async (q: string) => (await h.api('GET', `/accounts?${q}`)).json;
    expect((await names('filter=client&sort=Name:desc')).items.map((a: { name: string }) => a.name)).toEqual(['Client B', 'Client A']);
    expect(await names('sort=Name&skip=1&limit=1')).toMatchObject({ totalItems: 3, items: [{ name: 'Client B' }] });
    expect((await names('sort=Global:desc')).items[0].name).toBe('Provider');
    expect((await names('withStats=false')).items[0].stats).toBeUndefined();

    const add = async (accountId: string, name: string) => {
      const p = (await h.api('POST', `/accounts/${accountId}/participants`, { name, email: `${name}@example.com`, role: 'approver' })).json;
      await h.device('POST', `/participants/${p.id}/activate`, { activationCode: p.activationCode });
      return p.id as string;
    };
    const own = [await add(client.id, 'zoe'), await add(client.id, 'adam'), await add(client.id, 'mia')];
    const global = await add(provider.id, 'gus');
    await h.api('POST', `/accounts/${client.id}/vaults`, {
      name: 'shared',
      cryptoKind: 'ECDSA',
      groups: [{ name: 'g', requiredApprovals: 2, members: [{ id: own[0] }, { id: own[1] }, { id: global }] }],
    });
    expect((await h.api('PUT', `/participants/${own[2]}`, { status: 'DEACTIVATED' })).status).toBe(200);

    const people = async (q: string) => (await h.api('GET', `/accounts/${client.id}/participants?${q}`)).json;
    expect((await people('sort=Name')).items.map((p: { name: string }) => p.name)).toEqual(['adam', 'zoe']);
    expect((await people('sort=Name&withDeactivated=true')).items.map((p: { name: string }) => p.name)).toEqual(['adam', 'mia', 'zoe']);
    const withGlobal = await people('sort=Name&withGlobal=true');
    expect(withGlobal.items.map((p: { name: string; accountName: string }) => `${p.name}@${p.accountName}`)).toEqual([
      'adam@Client A',
      'gus@Provider',
      'zoe@Client A',
    ]);
    expect(await people('filter=ZO')).toMatchObject({ totalItems: 1, items: [{ name: 'zoe', status: 'ACTIVATED', isActive: true }] });
    expect((await people('sort=Status:desc&withDeactivated=true')).items[0].status).toBe('DEACTIVATED');

    const stats = (await h.api('GET', `/accounts/${client.id}?withStats=true`)).json.stats;
    expect(stats).toEqual({ participants: { total: 3, inactive: 1 }, operations: { total: 3, pending: 3 }, vaults: { total: 1, inactive: 1 } });
    const vaults = (await h.api('GET', `/accounts/${client.id}/vaults`)).json;
    expect(vaults).toMatchObject({ totalItems: 1, items: [{ name: 'shared', status: 'NOT_INITIALIZED', pendingOperations: 0 }] });
  });
});
