import { randomBytes } from 'node:crypto';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { vaultAddresses } from '../../src/vaults/vault-addresses.js';
import { vaultKeys } from '../../src/platform/redis-keys.js';
import type { Bip44Account, VaultRecord } from '../../src/vaults/vault-schema.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { regtestAdaptor } from '../../adaptors/bitcoin/test-kit.js';
import { testRedis } from '../helpers/redis.js';

const bip32 = BIP32Factory(ecc);
const GAP = 20;
const USED = 100;

function accountOf(node: BIP32Interface, coin: string, account: string): Bip44Account {
  return {
    publicKey: Buffer.from(node.publicKey).toString('hex'),
    cpar: Buffer.from(node.chainCode).toString('hex'),
    bipLevel: 3,
    parentFingerprint: 0,
    childNumber: 0,
    coin,
    account,
  };
}

const recordOf = (vaultId: string, bip44: Bip44Account): VaultRecord => ({
  vaultId,
  ledgerId: 'btcregtest',
  kind: 'bip44',
  bip44,
  addressFormat: 'p2wpkh',
  createdAt: new Date().toISOString(),
});

/** The adaptor with every address the vault scan asks the back end about recorded. */
function counting(adaptor: LedgerAdaptor): { adaptor: LedgerAdaptor; asked: string[] } {
  const asked: string[] = [];
  const wrapped: LedgerAdaptor = {
    ...adaptor,
    addressesUsed: async (addresses) => {
      asked.push(...addresses);
      return adaptor.addressesUsed!(addresses);
    },
  };
  return { adaptor: wrapped, asked };
}

describe('BIP44 address index: the scan does back-end work past the last used index only', () => {
  let regtest: BitcoinRegtest;
  let adaptor: LedgerAdaptor;
  let close: () => void;
  const { redis, prefix } = testRedis();
  const store = new VaultStore(redis, prefix);
  const root = bip32.fromSeed(randomBytes(32));
  const record = recordOf('many-used', accountOf(root.derivePath("m/44'/1'/0'").neutered(), '1', '0'));
  const addressAt = (change: number, index: number) =>
    adaptor.addressFromPublicKey({ scheme: 'secp256k1', bytes: Uint8Array.from(root.derivePath(`m/44'/1'/0'/${change}/${index}`).publicKey) }, 'p2wpkh');
  const post = (path: string, body: unknown) =>
    fetch(`${regtest.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const fund = async (address: string) => expect((await post('/dev/faucet', { address, amountSats: 10_000 })).status).toBe(200);

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    ({ adaptor, close } = regtestAdaptor(regtest.url));
    // Receive 0..USED-1 used but for a hole the gap bridges; change 0..2 used.
    for (let i = 0; i < USED; i++) if (i !== 40) await fund(addressAt(0, i));
    for (let i = 0; i < 3; i++) await fund(addressAt(1, i));
    await post('/dev/mine', { blocks: 1 });
  }, 300_000);
  afterAll(async () => {
    close();
    redis.disconnect();
    await regtest?.stop();
  });

  it('asks only about the gap past the last used index on the second call, with the same addresses', async () => {
    const first = counting(adaptor);
    const before = await vaultAddresses(first.adaptor, record, GAP, store.addresses);
    expect(before.filter((a) => !a.change).map((a) => a.address)).toEqual(Array.from({ length: USED }, (_, i) => addressAt(0, i)));
    expect(before.filter((a) => a.change).map((a) => a.path)).toEqual(['1/0', '1/1', '1/2']);
    // Receive: five full windows and an empty one; change: a window finding 1/2, then one from 1/3.
    const fromZero = USED + GAP + 2 * GAP;
    expect(first.asked).toHaveLength(fromZero);

    const second = counting(adaptor);
    const again = await vaultAddresses(second.adaptor, record, GAP, store.addresses);
    expect(again).toEqual(before);
    const window = (change: number, from: number) => Array.from({ length: GAP }, (_, i) => addressAt(change, from + i));
    expect(second.asked).toEqual([...window(0, USED), ...window(1, 3)]);
    // What signing needs comes back from the index as derived: the key of each address.
    const key = root.derivePath(`m/44'/1'/0'/0/${USED - 1}`).publicKey;
    expect(Buffer.from(again[USED - 1]!.publicKey.bytes).equals(Buffer.from(key))).toBe(true);
    expect(again[USED - 1]!.keyId).toMatch(/^3056301006072A8648CE3D020106052B8104000A034200[0-9A-F]{130}$/);

    // Without the index, every call starts again from index 0.
    const plain = counting(adaptor);
    await vaultAddresses(plain.adaptor, record, GAP);
    expect(plain.asked).toHaveLength(fromZero);
  }, 120_000);

  it('picks up an address used since inside the gap, and keeps scanning past it', async () => {
    await fund(addressAt(0, USED + 5));
    await post('/dev/mine', { blocks: 1 });
    const third = counting(adaptor);
    const after = await vaultAddresses(third.adaptor, record, GAP, store.addresses);
    expect(after.filter((a) => !a.change).at(-1)?.address).toBe(addressAt(0, USED + 5));
    const range = (change: number, from: number) => Array.from({ length: GAP }, (_, i) => addressAt(change, from + i));
    // The old gap window finds USED+5, then one more window past it ends the receive chain.
    expect(third.asked).toEqual([...range(0, USED), ...range(0, USED + 6), ...range(1, 3)]);
    const fourth = counting(adaptor);
    await vaultAddresses(fourth.adaptor, record, GAP, store.addresses);
    expect(fourth.asked).toEqual([...range(0, USED + 6), ...range(1, 3)]);
  }, 120_000);

  it('keeps one index per account, and starts afresh when the vault id is registered again with another key', async () => {
    const keys = vaultKeys(prefix);
    expect(await redis.exists(keys.addressIndex('many-used', '1', '0'))).toBe(1);
    expect(await redis.exists(keys.addressIndex('many-used', '1', '1'))).toBe(0);
    const other = recordOf('many-used', accountOf(bip32.fromSeed(randomBytes(32)).derivePath("m/44'/1'/0'").neutered(), '1', '0'));
    const fresh = counting(adaptor);
    const addresses = await vaultAddresses(fresh.adaptor, other, GAP, store.addresses);
    expect(addresses.map((a) => a.path)).toEqual(['0/0']);
    expect(fresh.asked).toHaveLength(2 * GAP);
    expect(fresh.asked).not.toContain(addressAt(0, 0));
    // Removing the vault removes its indexes with it.
    await store.create(other);
    await store.remove('many-used');
    expect(await redis.exists(keys.addressIndex('many-used', '1', '0'))).toBe(0);
  }, 120_000);
});
