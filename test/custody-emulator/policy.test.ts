import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dropPrefix, expectProblem, quorumVault, startHarness } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A sign request whose providerData says what it moves, as the connector writes it. */
function request(publicKey: string, withdrawal: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    description: 'withdrawal',
    dataToSign: [sha256(randomBytes(32))],
    publicKeys: [publicKey],
    ledger: 'ETH',
    providerData: JSON.stringify({ reference: 'w-1', request: withdrawal }),
    ...extra,
  };
}

describe('quorum policy rules at sign time', () => {
  it('declines what a rule refuses, naming the rule; passes the rest to the approvers', async () => {
    // Wednesday 2026-11-25 10:30 UTC.
    const clock = { now: Date.UTC(2026, 10, 25, 10, 30) };
    const h = await startHarness({ clock });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const policy = {
      timeZone: 'Europe/Paris',
      rules: {
        weeklyTimeSlots: [{ days: 'MON-FRI', timeStart: '09:00', timeEnd: '18:00' }],
        amountRange: { ETH: { minimum: 0.01, maximum: 1 } },
        whiteList: ['0x00000000000000000000000000000000000000C1', '0x00000000000000000000000000000000000000c2'],
        attributes: [{ id: 'ledger', op: 'IN', value: 'ETH, ETHTEST' }],
      },
    };
    const { vaultId, members } = await quorumVault(h, { policy });
    const key = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;
    let token = h.token;
    const sign = async (withdrawal: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const res = await h.api('POST', `/vaults/${vaultId}/sign`, request(key, withdrawal, extra), { token });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return (await h.api('GET', `/operations/sign/${res.json.operationID}`, undefined, { token })).json as {
        status: string;
        statusText: string;
        operationID: string;
      };
    };
    const ok = { recipientAddress: '0x00000000000000000000000000000000000000c1', asset: 'ETH', amount: '0.5' };

    const passed = await sign(ok);
    expect(passed.status).toBe('PENDING');
    for (const m of members.slice(0, 2)) await h.device('POST', `/participants/${m.id}/operations/${passed.operationID}/approve`);
    expect((await h.api('GET', `/operations/sign/${passed.operationID}`)).json.status).toBe('COMPLETED');

    expect(await sign({ ...ok, amount: '2' })).toMatchObject({
      status: 'DECLINED',
      statusText: expect.stringMatching(/^Declined by policy rule amountRange: 2 ETH is outside 0.01 … 1/),
    });
    expect(await sign({ ...ok, amount: 0.001 })).toMatchObject({ status: 'DECLINED', statusText: expect.stringContaining('policy rule amountRange') });
    expect(await sign({ ...ok, recipientAddress: '0x00000000000000000000000000000000000000C3' })).toMatchObject({
      status: 'DECLINED',
      statusText: expect.stringContaining('policy rule whiteList: recipient 0x00000000000000000000000000000000000000C3'),
    });
    expect(await sign(ok, { ledger: 'BTC' })).toMatchObject({
      status: 'DECLINED',
      statusText: expect.stringContaining("policy rule attributes: ledger 'BTC' fails IN"),
    });
    const unsaid = await h.api('POST', `/vaults/${vaultId}/sign`, { ...request(key, ok), providerData: '' });
    expect((await h.api('GET', `/operations/sign/${unsaid.json.operationID}`)).json.statusText).toMatch(
      /policy rule amountRange: the request does not say what it transfers/,
    );
    // Saturday 10:30 in Paris: outside the slots.
    clock.now = Date.UTC(2026, 10, 28, 9, 30);
    token = (await h.login()).json.access_token as string;
    expect(await sign(ok)).toMatchObject({
      status: 'DECLINED',
      statusText: expect.stringContaining('policy rule weeklyTimeSlots: outside the weekly time slots (MON-FRI 09:00-18:00, Europe/Paris)'),
    });
    // A declined request waits for nobody.
    expect((await h.device('GET', `/participants/${members[0]!.id}/operations`)).json).toEqual([]);
  });

  it('sets and reads the rules through the emulator route (admin only) and shows them in the join request', async () => {
    const h = await startHarness();
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const { account, vaultId } = await quorumVault(h, {}, false);
    const path = `/vaults/${vaultId}/policy`;
    expect((await h.device('GET', path)).json).toMatchObject({
      timeZone: 'UTC',
      rules: { weeklyTimeSlots: [], amountRange: {}, whiteList: [], derivedWhiteList: [], attributes: [] },
    });
    const rules = { amountRange: { BTC: { minimum: 0, maximum: 0.5 } }, weeklyTimeSlots: [{ days: 'SAT,SUN', timeStart: '22:00', timeEnd: '06:00' }] };
    const set = await h.device('PUT', path, { rules });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    expect((await h.device('GET', path)).json.rules).toMatchObject(rules);
    expectProblem(await h.call('PUT', path, { rules }, { base: 'emulator' }), 401);
    expectProblem(await h.device('PUT', path, { rules: { amountRange: { BTC: { minimum: 2, maximum: 1 } } } }), 400);
    expectProblem(await h.device('PUT', path, { rules: { weeklyTimeSlots: [{ days: 'FUNDAY', timeStart: '09:00', timeEnd: '10:00' }] } }), 400);
    expectProblem(await h.device('PUT', path, { timeZone: 'Mars/Olympus', rules }), 400);
    expectProblem(await h.device('PUT', path, { rules: { unknownRule: [] } }), 400);
    const join = (await h.api('GET', `/accounts/${account.id}/operations?status=PENDING`)).json.items[0].operationID as string;
    expect((await h.api('GET', `/operations/joinpolicyvault/${join}`)).json.policies[0]).toMatchObject({ timeZone: 'UTC', rules });
  });
});
