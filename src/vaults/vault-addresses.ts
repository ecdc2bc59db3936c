import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { InvalidArgumentError } from '../errors.js';
import type { LedgerAdaptor, VaultAddress, VaultSource } from '../ledger/adaptor.js';
import { parsePublicKeyArg, toCustodyKeyId, type PublicKey } from '../ledger/public-key.js';
import type { VaultRecord } from './vault-schema.js';

const bip32 = BIP32Factory(ecc);

function accountNode(record: VaultRecord): BIP32Interface {
  const b = record.bip44;
  if (!b) throw new Error('not a BIP44 vault');
  const key = parsePublicKeyArg(b.publicKey, 'secp256k1', 'bip44.publicKey');
  const node = bip32.fromPublicKey(Buffer.from(key.bytes), Buffer.from(b.cpar.replace(/^0x/, ''), 'hex'));
  return node;
}

function derived(adaptor: LedgerAdaptor, record: VaultRecord, node: BIP32Interface, change: 0 | 1, index: number): VaultAddress {
  const child = node.derive(change).derive(index);
  const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(child.publicKey) };
  return {
    address: adaptor.addressFromPublicKey(publicKey, record.addressFormat),
    publicKey,
    keyId: toCustodyKeyId(publicKey),
    path: `${change}/${index}`,
    change: change === 1,
  };
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
 * (`addressesUsed`), else "has a balance in any asset".
 */
export async function vaultAddresses(adaptor: LedgerAdaptor, record: VaultRecord, gapLimit: number): Promise<VaultAddress[]> {
  if (record.kind === 'single') return [singleAddress(adaptor, record)];
  const node = accountNode(record);
  const used = async (addresses: string[]): Promise<boolean[]> => {
    if (adaptor.addressesUsed) return adaptor.addressesUsed(addresses);
    const balances = await adaptor.getBalances(addresses, adaptor.assets());
    return addresses.map((a) => balances.some((b) => b.address === a && b.amount > 0n));
  };
  const out: VaultAddress[] = [];
  for (const change of [0, 1] as const) {
    let start = 0;
    for (;;) {
      const window = Array.from({ length: gapLimit }, (_, i) => derived(adaptor, record, node, change, start + i));
      const flags = await used(window.map((w) => w.address));
      const lastUsed = flags.lastIndexOf(true);
      // The first receive address always counts, so a fresh vault still has somewhere to receive.
      const keep = change === 0 && start === 0 ? Math.max(lastUsed, 0) : lastUsed;
      out.push(...window.slice(0, keep + 1));
      if (lastUsed < 0) break;
      start += lastUsed + 1;
    }
  }
  return out;
}

export async function vaultSource(adaptor: LedgerAdaptor, record: VaultRecord, gapLimit: number): Promise<VaultSource> {
  const addresses = await vaultAddresses(adaptor, record, gapLimit);
  const first = addresses[0] as VaultAddress;
  const change = addresses.find((a) => a.change) ?? first;
  return { vaultId: record.vaultId, addresses, changeAddress: record.kind === 'bip44' ? change.address : first.address };
}
