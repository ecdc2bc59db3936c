import { randomBytes } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { LedgerRegistry } from '../../src/ledger/registry.js';
import { vaultAddresses } from '../../src/vaults/vault-addresses.js';
import type { VaultRecord } from '../../src/vaults/vault-schema.js';

const bip32 = BIP32Factory(ecc);
/** The largest BIP44_GAP_LIMIT: a window of 1,000 derivations per chain. */
const GAP = 1_000;
const USED = 30;

describe('a BIP44 scan shares the event loop', () => {
  it('lets other callbacks run while it derives a gap window, and finds the same addresses', async () => {
    const account = bip32.fromSeed(randomBytes(32)).derivePath("m/44'/60'/0'");
    const record: VaultRecord = {
      vaultId: 'scan-yields',
      ledgerId: 'eth',
      kind: 'bip44',
      bip44: {
        publicKey: Buffer.from(account.publicKey).toString('hex'),
        cpar: Buffer.from(account.chainCode).toString('hex'),
        bipLevel: 3,
        parentFingerprint: 0,
        childNumber: 0,
        coin: '60',
        account: '0',
      },
      createdAt: new Date().toISOString(),
    };
    const codec = new LedgerRegistry([], families).addressCodec('eth');
    const receive = account.derive(0);
    const expected = Array.from({ length: USED }, (_, i) =>
      codec.addressFromPublicKey({ scheme: 'secp256k1', bytes: Uint8Array.from(receive.derive(i).publicKey) }),
    );
    const used = new Set(expected);
    // A back end that answers at once (a resolved promise): without yielding, the scan would never let a macrotask run.
    const adaptor = { ...codec, addressesUsed: (addresses: string[]) => Promise.resolve(addresses.map((a) => used.has(a))) } as unknown as LedgerAdaptor;

    let turns = 0;
    let scanning = true;
    const tick = () => {
      if (!scanning) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const addresses = await vaultAddresses(adaptor, record, GAP).finally(() => {
      scanning = false;
    });

    expect(addresses.map((a) => a.address)).toEqual(expected);
    expect(addresses.map((a) => a.path)).toEqual(expected.map((_, i) => `0/${i}`));
    // 2,000 derivations in the windows: the scan yielded to the event loop in between.
    expect(turns).toBeGreaterThan(1);
  }, 120_000);
});
