import { createHash, randomBytes } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import { networks, payments } from 'bitcoinjs-lib';
import { computeAddress } from 'ethers';
import * as ecc from 'tiny-secp256k1';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePublicKey, uncompressedPoint } from '../../src/ledger/public-key.js';
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
    // Recipients that are not objects are refused by the rules that read them, never a server error.
    const odd = await h.api('POST', `/vaults/${vaultId}/sign`, { ...request(key, ok), providerData: '{"recipients":[null,5,"x"]}' });
    expect(odd.status, JSON.stringify(odd.json)).toBe(200);
    expect((await h.api('GET', `/operations/sign/${odd.json.operationID}`)).json).toMatchObject({
      status: 'DECLINED',
      statusText: 'Declined by policy rule amountRange: an amount of ETH is not a number',
    });
    const unsaid = await h.api('POST', `/vaults/${vaultId}/sign`, { ...request(key, ok), providerData: '' });
    expect((await h.api('GET', `/operations/sign/${unsaid.json.operationID}`)).json.statusText).toMatch(
      /policy rule amountRange: the request does not say what it transfers/,
    );
    // Saturday 10:30 in Paris: outside the slots, so held (PENDING, nobody asked) until Monday 09:00 Paris.
    clock.now = Date.UTC(2026, 10, 28, 9, 30);
    token = (await h.login()).json.access_token as string;
    expect(await sign(ok)).toMatchObject({
      status: 'PENDING',
      statusText:
        'Held by policy rule weeklyTimeSlots: outside the weekly time slots (MON-FRI 09:00-18:00, Europe/Paris); the next slot opens 2026-11-30T08:00:00.000Z',
    });
    // A rule that refuses is not held: waiting for a slot would not change its answer.
    expect(await sign({ ...ok, amount: '2' })).toMatchObject({ status: 'DECLINED', statusText: expect.stringContaining('policy rule amountRange') });
    // Neither a declined nor a held request waits for anybody's answer.
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

  it('derivedWhiteList: a recipient derived from a listed extended key passes, as another vault names its account by its backup; others are declined', async () => {
    const h = await startHarness();
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    // The cold vault: a BIP44 account whose backup is its extended public key.
    const cold = await quorumVault(h, { hierarchy: 'BIP44', coinType: 60, firstAccountName: 'cold' });
    const backup = (await h.api('GET', `/vaults/${cold.vaultId}/coins/60/accounts/0/backup`)).json;
    const coldKey = (await h.api('POST', `/vaults/${cold.vaultId}/coins/60/accounts/0/chains/external/addresses`)).json.publicKey as string;
    const coldAddress = computeAddress(`0x${Buffer.from(uncompressedPoint(parsePublicKey(coldKey, 'secp256k1'))).toString('hex')}`);
    // An extended key from elsewhere (a wallet outside the custody service), on Bitcoin regtest.
    const account = BIP32Factory(ecc).fromSeed(randomBytes(32)).derivePath("m/84'/1'/0'");
    const segwit = (chain: number, i: number) =>
      payments.p2wpkh({ pubkey: Uint8Array.from(account.derive(chain).derive(i).publicKey), network: networks.regtest }).address as string;
    const derivedWhiteList = [
      {
        chainCode: backup.cpar,
        publicKey: backup.publicKey,
        level: backup.bipLevel,
        parentFingerprint: backup.parentFingerprint,
        childNumber: backup.childNumber,
      },
      {
        chainCode: Buffer.from(account.chainCode).toString('hex'),
        publicKey: Buffer.from(account.publicKey).toString('hex'),
        level: account.depth,
        parentFingerprint: account.parentFingerprint.toString(16),
        childNumber: account.index,
      },
    ];
    const { vaultId } = await quorumVault(h, { policy: { rules: { derivedWhiteList } } });
    const key = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;
    const status = async (address: string, extra: Record<string, unknown> = {}) => {
      const body = request(key, { recipientAddress: address, asset: 'ETH', amount: '1' }, extra);
      const id = (await h.api('POST', `/vaults/${vaultId}/sign`, body)).json.operationID as string;
      return (await h.api('GET', `/operations/sign/${id}`)).json as { status: string; statusText: string };
    };

    expect((await status(coldAddress)).status).toBe('PENDING');
    expect((await status(coldAddress.toLowerCase())).status).toBe('PENDING');
    expect((await status(segwit(1, 19), { ledger: 'BTCREGTEST' })).status).toBe('PENDING');
    expect((await status(segwit(0, 0).toUpperCase(), { ledger: 'BTCREGTEST' })).status).toBe('PENDING');
    // The other Bitcoin forms of a key: P2SH-P2WPKH (testnet) of a change key, P2PKH (main network) of the account key itself.
    const nested = payments.p2sh({
      redeem: payments.p2wpkh({ pubkey: Uint8Array.from(account.derive(1).derive(4).publicKey), network: networks.testnet }),
      network: networks.testnet,
    });
    expect((await status(nested.address as string, { ledger: 'BTCTEST' })).status).toBe('PENDING');
    expect((await status(payments.p2pkh({ pubkey: Uint8Array.from(account.publicKey) }).address as string, { ledger: 'BTC' })).status).toBe('PENDING');
    // Past the gap limit of 20 on a chain: not recognised.
    expect(await status(segwit(0, 20), { ledger: 'BTCREGTEST' })).toEqual(
      expect.objectContaining({
        status: 'DECLINED',
        statusText: `Declined by policy rule derivedWhiteList: recipient ${segwit(0, 20)} is not derived from a key of the derived white list`,
      }),
    );
    const stranger = '0x00000000000000000000000000000000000000C3';
    expect((await status(stranger)).statusText).toBe(
      `Declined by policy rule derivedWhiteList: recipient ${stranger} is not derived from a key of the derived white list`,
    );

    // With a white list beside it, either list lets a recipient through.
    const path = `/vaults/${vaultId}/policy`;
    expect((await h.device('PUT', path, { rules: { derivedWhiteList, whiteList: [stranger] } })).status).toBe(200);
    expect((await status(stranger)).status).toBe('PENDING');
    expect((await status(coldAddress)).status).toBe('PENDING');
    expect((await status('0x00000000000000000000000000000000000000C4')).statusText).toBe(
      'Declined by policy rule derivedWhiteList: recipient 0x00000000000000000000000000000000000000C4 is on neither the white list nor the derived white list',
    );
    const unsaid = (await h.api('POST', `/vaults/${vaultId}/sign`, { ...request(key, {}), providerData: '' })).json.operationID as string;
    expect((await h.api('GET', `/operations/sign/${unsaid}`)).json.statusText).toBe(
      'Declined by policy rule derivedWhiteList: the request does not say what it transfers (providerData has no recipients and no request)',
    );

    const entry = derivedWhiteList[1]!;
    for (const bad of [
      { ...entry, chainCode: entry.chainCode.slice(2) },
      { ...entry, publicKey: 'zz' },
      { ...entry, level: -1 },
    ]) {
      expectProblem(await h.device('PUT', path, { rules: { derivedWhiteList: [bad] } }), 400);
    }
    expectProblem(await h.device('PUT', path, { rules: { derivedWhiteList: Array.from({ length: 21 }, () => entry) } }), 400);
  });
});
