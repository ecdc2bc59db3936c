import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { InvalidArgumentError } from '../platform/errors.js';
import { sliceYielder } from './derivation/time-sliced.js';
import type { LedgerAdaptor, VaultAddress, VaultSource } from '../ledger/adaptor.js';
import { parsePublicKeyArg, toCustodyKeyId, type PublicKey } from '../ledger/public-key.js';
import type { AddressIndex, Chain } from './address-index.js';
import type { VaultRecord } from './vault-schema.js';

const bip32 = BIP32Factory(ecc);

export function accountNode(record: VaultRecord): BIP32Interface {
  const b = record.bip44;
  if (!b) throw new Error('not a BIP44 vault');
  const key = parsePublicKeyArg(b.publicKey, 'secp256k1', 'bip44.publicKey');
  const node = bip32.fromPublicKey(Buffer.from(key.bytes), Buffer.from(b.cpar.replace(/^0x/, ''), 'hex'));
  return node;
}

/** `[address, uncompressed public key hex]` of one derived address, as the address index keeps it. */
export type Derived = [string, string];

export function derive(adaptor: LedgerAdaptor, record: VaultRecord, node: BIP32Interface, change: Chain, index: number): Derived {
  const compressed = node.derive(change).derive(index).publicKey;
  const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(compressed) };
  return [adaptor.addressFromPublicKey(publicKey, record.addressFormat), Buffer.from(ecc.pointCompress(compressed, false)).toString('hex')];
}

/** The vault address of a derived entry: string work only, so a long history costs no curve arithmetic per call. */
function vaultAddress([address, uncompressedHex]: Derived, change: Chain, index: number): VaultAddress {
  const uncompressed = Buffer.from(uncompressedHex, 'hex');
  const bytes = Buffer.concat([Buffer.from([(uncompressed[64] as number) % 2 === 0 ? 2 : 3]), uncompressed.subarray(1, 33)]);
  const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(bytes), uncompressed: Uint8Array.from(uncompressed) };
  return { address, publicKey, keyId: toCustodyKeyId(publicKey), path: `${change}/${index}`, change: change === 1 };
}

/** Checks a registration against its ledger before it is stored: keys parse, format known, BIP44 fits. */
export function validateVault(adaptor: LedgerAdaptor, record: VaultRecord): void {
  if (record.addressFormat && !adaptor.addressFormats().includes(record.addressFormat)) {
    throw new InvalidArgumentError(
      `Unknown addressFormat '${record.addressFormat}' for ledger ${adaptor.ledgerId}. Valid values: ${adaptor.addressFormats().join(', ')}`,
    );
  }
  if (record.kind === 'bip44') {
    if (adaptor.scheme !== 'secp256k1') {
      throw new InvalidArgumentError(`BIP44 vaults need a secp256k1 ledger; ${adaptor.ledgerId} signs with ${adaptor.scheme}`);
    }
    accountNode(record);
  }
}

export function singleAddress(adaptor: LedgerAdaptor, record: VaultRecord): VaultAddress {
  const text = record.publicKey as string;
  const publicKey = adaptor.parseNativePublicKey?.(text) ?? parsePublicKeyArg(text, adaptor.scheme, 'publicKey');
  return { address: adaptor.addressFromPublicKey(publicKey, record.addressFormat), publicKey, keyId: text };
}

/**
 * Addresses a vault controls. A BIP44 vault is scanned on the receive (0) and change (1)
 * chains until `gapLimit` unused addresses in a row; "used" is the adaptor's notion
 * (`addressesUsed`), else "has a balance in any asset". With an address index the scan
 * starts past each chain's last used index, on addresses derived before: the back end is
 * asked only about addresses that may have become used since, so the cost of a call does
 * not grow with the vault's history. An address once seen used stays the vault's.
 */
export async function vaultAddresses(adaptor: LedgerAdaptor, record: VaultRecord, gapLimit: number, index?: AddressIndex): Promise<VaultAddress[]> {
  if (record.kind === 'single') return [singleAddress(adaptor, record)];
  const account = record.bip44;
  if (!account) throw new Error('not a BIP44 vault');
  const node = accountNode(record);
  const used = async (addresses: string[]): Promise<boolean[]> => {
    if (adaptor.addressesUsed) return adaptor.addressesUsed(addresses);
    const balances = await adaptor.getBalances(addresses, adaptor.assets());
    return addresses.map((a) => balances.some((b) => b.address === a && b.amount > 0n));
  };
  const known = index ? await index.read(record.vaultId, record.ledgerId, record.addressFormat, account) : undefined;
  const out: VaultAddress[] = [];
  const updates = {} as Parameters<AddressIndex['write']>[4];
  // Curve arithmetic for a whole gap window (BIP44_GAP_LIMIT addresses) and string work for a long
  // history would hold the event loop: both yield to other requests every few milliseconds.
  const pause = sliceYielder();
  for (const change of [0, 1] as const) {
    const before = known?.chains[change] ?? { derived: [], lastUsed: -1 };
    const list: Derived[] = [...before.derived];
    const through = async (i: number): Promise<void> => {
      while (list.length <= i) {
        list.push(derive(adaptor, record, node, change, list.length));
        await pause();
      }
    };
    const at = (i: number): Derived => list[i] as Derived;
    let lastUsed = before.lastUsed;
    for (;;) {
      const start = lastUsed + 1;
      await through(start + gapLimit - 1);
      const window = Array.from({ length: gapLimit }, (_, i) => at(start + i)[0]);
      const flags = await used(window);
      const found = flags.lastIndexOf(true);
      if (found < 0) break;
      lastUsed = start + found;
    }
    // The first receive address always counts, so a fresh vault still has somewhere to receive.
    const keep = change === 0 ? Math.max(lastUsed, 0) : lastUsed;
    await through(keep);
    for (let i = 0; i <= keep; i++) {
      out.push(vaultAddress(at(i), change, i));
      await pause();
    }
    updates[change] = { from: before.derived.length, derived: list.slice(before.derived.length), lastUsed };
  }
  await index?.write(record.vaultId, record.ledgerId, record.addressFormat, account, updates);
  return out;
}

export async function vaultSource(adaptor: LedgerAdaptor, record: VaultRecord, gapLimit: number, index?: AddressIndex): Promise<VaultSource> {
  const addresses = await vaultAddresses(adaptor, record, gapLimit, index);
  const first = addresses[0] as VaultAddress;
  const change = addresses.find((a) => a.change) ?? first;
  return { vaultId: record.vaultId, addresses, changeAddress: record.kind === 'bip44' ? change.address : first.address };
}
