import { BIP32Factory } from 'bip32';
import { computeAddress } from 'ethers';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInMemoryCustodyEmulator, type RunningInMemoryCustodyEmulator } from '../../src/dev/custody-emulator/index.js';
import { parsePublicKey } from '../../src/ledger/public-key.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';

const bip32 = BIP32Factory(ecc);

/** The address of a DER SPKI (uncompressed) key, by ethers alone. */
const ethAddress = (spkiHex: string) => computeAddress(`0x${spkiHex.slice(-130)}`);

/**
 * `POST /admin/vaults {vaultId, ledgerId}` reads the key from the custody service (the
 * emulator over HTTP): the single key, or a BIP44 account's backup; a BIP44 vault may hold
 * several accounts, and `coin`/`account` on its balance select one.
 */
describe('vault registration by custody vault id', () => {
  let chain: TestChain;
  let custody: RunningInMemoryCustodyEmulator;
  let svc: TestService;

  beforeAll(async () => {
    chain = await startTestChain();
    custody = await startInMemoryCustodyEmulator({});
    svc = await startTestService({ ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } }, { env: { CUSTODY_URL: custody.url, BIP44_GAP_LIMIT: '3' } });
  });
  afterAll(async () => {
    await svc?.stop();
    await custody?.stop();
    await chain?.stop();
  });

  const register = (body: object) => svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body });
  const balance = (vaultId: string, query = '') => svc.call('GET', `/api/v1.0/vaults/${vaultId}/balance${query}`, { key: READ_KEY });

  it('a single-key vault: the key comes from GET {mng}/vaults/{id}/publickey', async () => {
    const v = custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    const res = await register({ vaultId: v.vaultId, ledgerId: 'ethdev' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ vaultId: v.vaultId, kind: 'single', publicKey: v.publicKey, address: ethAddress(v.publicKey) });
    expect((await register({ vaultId: v.vaultId, ledgerId: 'ethdev' })).status).toBe(409);
  });

  it('a BIP44 vault with several accounts; coin and account on the balance select one', async () => {
    const v = custody.control.createVault('ECDSA', { hierarchy: 'BIP44', accounts: { 60: 2 } });
    const first = await register({ vaultId: v.vaultId, ledgerId: 'ethdev', coin: 60, account: 0 });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ kind: 'bip44', bip44: { coin: '60', account: '0', bipLevel: 3 } });
    const second = await register({ vaultId: v.vaultId, ledgerId: 'ethdev', coin: '60', account: '1' });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body.accounts.map((a: { account: string }) => a.account)).toEqual(['0', '1']);
    // The default account stays the first one registered.
    expect(second.body.bip44.account).toBe('0');
    const again = await register({ vaultId: v.vaultId, ledgerId: 'ethdev', coin: 60, account: 1 });
    expect(again.status).toBe(409);
    expect(again.body.errCode).toBe('ERR_VAULT_EXISTS');

    // Fund account 1's first receive address, derived here from the backup the service serves.
    const backup = (await (await fetch(`${custody.url}/vaults/${v.vaultId}/coins/60/accounts/1/backup`)).json()) as { publicKey: string; cpar: string };
    // The backup names the key as custody does (DER SPKI hex); BIP32 takes it compressed.
    const node = bip32.fromPublicKey(Buffer.from(parsePublicKey(backup.publicKey, 'secp256k1').bytes), Buffer.from(backup.cpar, 'hex'));
    const receive0 = computeAddress(`0x${Buffer.from(node.derive(0).derive(0).publicKey).toString('hex')}`);
    await chain.funder.sendEth(receive0, 3n * 10n ** 17n);

    const one = await balance(v.vaultId, '?coin=60&account=1');
    expect(one.body).toEqual({ vaultId: v.vaultId, coin: '60', account: '1', balances: [{ asset: 'ETH', amount: '0.3' }] });
    const byAccount = await balance(v.vaultId, '?account=1');
    expect(byAccount.body.balances).toEqual([{ asset: 'ETH', amount: '0.3' }]);
    const zero = await balance(v.vaultId);
    expect(zero.body).toEqual({ vaultId: v.vaultId, coin: '60', account: '0', balances: [{ asset: 'ETH', amount: '0' }] });
    const unknown = await balance(v.vaultId, '?coin=60&account=7');
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS', details: expect.stringContaining('Valid values (coin/account): 60/0, 60/1') });

    const listed = await svc.call('GET', '/api/v1.0/admin/vaults', { key: ADMIN_KEY });
    const entry = listed.body.items.find((i: { vaultId: string }) => i.vaultId === v.vaultId);
    expect(entry.accounts).toHaveLength(2);
  });

  it('refuses what the custody service refuses, in the wallet layer shape', async () => {
    const single = custody.control.createVault('ECDSA');
    const bip = custody.control.createVault('ECDSA', { hierarchy: 'BIP44', accounts: { 60: 2 } });
    const cases: [object, number, RegExp][] = [
      [{ vaultId: bip.vaultId, ledgerId: 'ethdev' }, 422, /give coin and account/],
      [{ vaultId: single.vaultId, ledgerId: 'ethdev', coin: 60, account: 0 }, 422, /not a BIP44 vault/],
      [{ vaultId: 'no-such-vault', ledgerId: 'ethdev' }, 404, /not known to the custody service/],
      [{ vaultId: single.vaultId, ledgerId: 'ethdev', coin: 60 }, 422, /coin and account together/],
      [{ vaultId: single.vaultId, ledgerId: 'nope' }, 422, /Unknown ledger/i],
    ];
    for (const [body, status, details] of cases) {
      const res = await register(body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.details).toMatch(details);
      expect(res.body).toMatchObject({ title: expect.any(String), errCode: expect.any(String), type: expect.any(String) });
    }
    // A single-key vault already registered cannot take a BIP44 account.
    expect((await register({ vaultId: single.vaultId, ledgerId: 'ethdev' })).status).toBe(201);
    const mixed = await register({
      vaultId: single.vaultId,
      ledgerId: 'ethdev',
      bip44: (await register({ vaultId: bip.vaultId, ledgerId: 'ethdev', coin: 60, account: 0 })).body.bip44,
    });
    expect(mixed.status).toBe(409);
  });

  it('answers 503 when the custody service cannot be reached', async () => {
    const offline = await startTestService(
      { ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } },
      { env: { CUSTODY_URL: 'http://127.0.0.1:9/custody/api/v1.0/mng' } },
    );
    try {
      const res = await offline.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: 'any', ledgerId: 'ethdev' } });
      expect(res.status).toBe(503);
      expect(res.body.errCode).toBe('ERR_CUSTODY_UNAVAILABLE');
    } finally {
      await offline.stop();
    }
  });
}, 120_000);
