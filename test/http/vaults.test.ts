import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethereumFamily } from '../../adaptors/ethereum/index.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';

const CASP_KEY =
  '3056301006072A8648CE3D020106052B8104000A0342000471A50AA19C7907F113A39409C9BB39F612E8A23223CDE454F17F91FCFFA2E56981411D2A6535754E7E0CAC511A3E4B5D7CE8150F316A37F5E2C7EF51183D805C';
const CASP_ADDRESS = '0x8240Fd14931292B85C850514c8a4eBd35E56EDA4';

const bip32 = BIP32Factory(ecc);
const account = bip32.fromSeed(Buffer.alloc(32, 7)).derivePath("m/44'/60'/0'").neutered();
const addressAt = (change: number, index: number): string =>
  ethereumFamily.create('ethdev', ethereumFamily.optionsSchema.parse({ rpcUrl: 'http://127.0.0.1:1' }), {} as never).addressFromPublicKey({
    scheme: 'secp256k1',
    bytes: Uint8Array.from(account.derive(change).derive(index).publicKey),
  });

describe('vault registry and vault balances', () => {
  let chain: TestChain;
  let svc: TestService;

  beforeAll(async () => {
    chain = await startTestChain();
    svc = await startTestService({ ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 } }, { env: { BIP44_GAP_LIMIT: '5' } });
  });
  afterAll(async () => {
    await svc.stop();
    await chain.stop();
  });

  it('registers, reads, lists and removes a single-key vault', async () => {
    const created = await svc.call('POST', '/api/v1.0/admin/vaults', {
      key: ADMIN_KEY,
      body: { vaultId: 'v-single', ledgerId: 'ethdev', publicKey: CASP_KEY },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ vaultId: 'v-single', ledgerId: 'ethdev', kind: 'single', address: CASP_ADDRESS });

    const again = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: 'v-single', ledgerId: 'ethdev', publicKey: CASP_KEY } });
    expect(again.status).toBe(409);

    const read = await svc.call('GET', '/api/v1.0/admin/vaults/v-single', { key: ADMIN_KEY });
    expect(read.body.addresses).toEqual([{ address: CASP_ADDRESS }]);
    const list = await svc.call('GET', '/api/v1.0/admin/vaults', { key: ADMIN_KEY });
    expect(list.body.items.map((v: { vaultId: string }) => v.vaultId)).toContain('v-single');

    await chain.funder.sendEth(CASP_ADDRESS, 2n * 10n ** 18n);
    const bal = await svc.call('GET', '/api/v1.0/vaults/v-single/balance?assets=ETH', { key: READ_KEY });
    expect(bal.status).toBe(200);
    expect(bal.body).toEqual({ vaultId: 'v-single', address: CASP_ADDRESS, balances: [{ asset: 'ETH', amount: '2' }] });

    const bip = await svc.call('GET', '/api/v1.0/vaults/v-single/balance?coin=60', { key: READ_KEY });
    expect(bip.status).toBe(422);

    expect((await svc.call('DELETE', '/api/v1.0/admin/vaults/v-single', { key: ADMIN_KEY })).status).toBe(200);
    expect((await svc.call('GET', '/api/v1.0/admin/vaults/v-single', { key: ADMIN_KEY })).status).toBe(404);
    expect((await svc.call('GET', '/api/v1.0/vaults/v-single/balance', { key: READ_KEY })).status).toBe(404);
  });

  it('rejects bad registrations with 422', async () => {
    const cases = [
      { vaultId: 'x1', ledgerId: 'nope', publicKey: CASP_KEY },
      { vaultId: 'x2', ledgerId: 'ethdev', publicKey: 'abcd' },
      { vaultId: 'x3', ledgerId: 'ethdev', publicKey: CASP_KEY, coin: 60, account: 0 },
      { vaultId: 'x5', ledgerId: 'ethdev', coin: 60 },
      { vaultId: 'bad id!', ledgerId: 'ethdev', publicKey: CASP_KEY },
      { vaultId: 'x4', ledgerId: 'ethdev', publicKey: CASP_KEY, addressFormat: 'p2wpkh' },
    ];
    for (const body of cases) {
      const res = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errCode).toBe('ERR_INVALID_ARGUMENTS');
    }
  });

  it('sums a BIP44 vault over its receive and change addresses up to the gap limit', async () => {
    // Used: receive 0 and 3 (a gap inside the limit of 5), change 0; receive 9 lies beyond the gap.
    await chain.funder.sendEth(addressAt(0, 0), 1n * 10n ** 18n);
    await chain.funder.sendEth(addressAt(0, 3), 2n * 10n ** 18n);
    await chain.funder.sendToken(chain.token.contract, addressAt(0, 3), 7_000_000n);
    await chain.funder.sendEth(addressAt(1, 0), 3n * 10n ** 17n);
    await chain.funder.sendEth(addressAt(0, 9), 5n * 10n ** 18n);
    const created = await svc.call('POST', '/api/v1.0/admin/vaults', {
      key: ADMIN_KEY,
      body: {
        vaultId: 'v-bip44',
        ledgerId: 'ethdev',
        bip44: {
          publicKey: Buffer.from(account.publicKey).toString('hex'),
          cpar: Buffer.from(account.chainCode).toString('hex'),
          bipLevel: account.depth,
          parentFingerprint: account.parentFingerprint,
          childNumber: account.index,
          coin: 60,
          account: 0,
        },
      },
    });
    expect(created.status).toBe(201);
    const native = await svc.call('GET', '/api/v1.0/vaults/v-bip44/balance', { key: READ_KEY });
    expect(native.body.balances).toEqual([{ asset: 'ETH', amount: '3.3' }]);
    const bal = await svc.call('GET', '/api/v1.0/vaults/v-bip44/balance?assets=*', { key: READ_KEY });
    expect(bal.status).toBe(200);
    expect(bal.body).toEqual({
      vaultId: 'v-bip44',
      coin: '60',
      account: '0',
      balances: [
        { asset: 'ETH', amount: '3.3' },
        { asset: 'DEMO', amount: '7' },
      ],
    });
    const read = await svc.call('GET', '/api/v1.0/admin/vaults/v-bip44', { key: ADMIN_KEY });
    expect(read.body.addresses.map((a: { path: string }) => a.path)).toEqual(['0/0', '0/1', '0/2', '0/3', '1/0']);

    const wrongCoin = await svc.call('GET', '/api/v1.0/vaults/v-bip44/balance?coin=0', { key: READ_KEY });
    expect(wrongCoin.status).toBe(422);
    expect(wrongCoin.body.details).toContain('Valid values (coin/account): 60/0');
  });

  it('reports an asset named twice in assets once, with what the vault holds', async () => {
    const created = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: 'v-twice', ledgerId: 'ethdev', publicKey: CASP_KEY } });
    expect(created.status).toBe(201);
    const once = await svc.call('GET', '/api/v1.0/vaults/v-twice/balance?assets=ETH', { key: READ_KEY });
    expect(once.body.balances).toHaveLength(1);
    for (const query of ['assets=ETH,ETH', 'assets=ETH&assets=eth']) {
      const twice = await svc.call('GET', `/api/v1.0/vaults/v-twice/balance?${query}`, { key: READ_KEY });
      expect({ query, status: twice.status, balances: twice.body.balances }).toEqual({ query, status: 200, balances: once.body.balances });
    }
  });

  it("refuses a BIP44 coin or account that is not a non-negative integer, as a registration by id does ('1/2' and '3' would alias '1' and '2/3')", async () => {
    const backup = {
      publicKey: Buffer.from(account.publicKey).toString('hex'),
      cpar: Buffer.from(account.chainCode).toString('hex'),
      bipLevel: account.depth,
      parentFingerprint: account.parentFingerprint,
      childNumber: account.index,
    };
    for (const [coin, acct] of [
      ['1/2', '3'],
      ['1', '2/3'],
      ['60', '-1'],
      ["60'", '0'],
      [-1, 0],
      [60, 1.5],
    ]) {
      const res = await svc.call('POST', '/api/v1.0/admin/vaults', {
        key: ADMIN_KEY,
        body: { vaultId: 'v-alias', ledgerId: 'ethdev', bip44: { ...backup, coin, account: acct } },
      });
      expect({ coin, acct, status: res.status, errCode: res.body.errCode }).toEqual({ coin, acct, status: 422, errCode: 'ERR_INVALID_ARGUMENTS' });
    }
    expect((await svc.call('GET', '/api/v1.0/admin/vaults/v-alias', { key: ADMIN_KEY })).status).toBe(404);
  });

  it('unknown vault → 404; read scope needed', async () => {
    expect((await svc.call('GET', '/api/v1.0/vaults/nope/balance', { key: READ_KEY })).status).toBe(404);
    expect((await svc.call('GET', '/api/v1.0/vaults/nope/balance')).status).toBe(401);
  });
});
