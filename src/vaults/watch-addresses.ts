import type { LedgerAdaptor } from '../ledger/adaptor.js';
import type { AddressIndex, Chain } from './address-index.js';
import { accountNode, derive, singleAddress, type Derived } from './vault-addresses.js';
import type { Bip44Account, VaultRecord } from './vault-schema.js';

/** One address the deposit scanner watches, and where it sits in its vault. */
export interface WatchedAddress {
  vaultId: string;
  address: string;
  /** BIP44 vaults: the account, chain and index of the address (`path` = `chain/index`). */
  bip44?: { account: Bip44Account; chain: Chain; index: number };
}

/**
 * Every address a deposit to the vault may arrive at, without asking the back end: a single-key
 * vault's address; of each BIP44 account, on the receive and the change chain, the addresses
 * up to `gapLimit` past the last one seen used (the address index's mark, raised by withdrawals'
 * scans and by deposits as they arrive), which is where a wallet following BIP44 hands out
 * its next addresses. New derivations are kept in the index for the next call.
 */
export async function watchAddresses(adaptor: LedgerAdaptor, record: VaultRecord, gapLimit: number, index: AddressIndex): Promise<WatchedAddress[]> {
  if (record.kind === 'single') return [{ vaultId: record.vaultId, address: singleAddress(adaptor, record).address }];
  const out: WatchedAddress[] = [];
  for (const account of record.accounts ?? (record.bip44 ? [record.bip44] : [])) {
    const one: VaultRecord = { ...record, bip44: account };
    const node = accountNode(one);
    const known = await index.read(record.vaultId, record.ledgerId, record.addressFormat, account);
    const update = {} as Parameters<AddressIndex['write']>[4];
    for (const chain of [0, 1] as const) {
      const before = known.chains[chain];
      const list: Derived[] = [...before.derived];
      const through = before.lastUsed + gapLimit;
      while (list.length <= through) list.push(derive(adaptor, one, node, chain, list.length));
      for (let i = 0; i <= through; i++) out.push({ vaultId: record.vaultId, address: (list[i] as Derived)[0], bip44: { account, chain, index: i } });
      update[chain] = { from: before.derived.length, derived: list.slice(before.derived.length), lastUsed: before.lastUsed };
    }
    await index.write(record.vaultId, record.ledgerId, record.addressFormat, account, update);
  }
  return out;
}

/** Raises a BIP44 address's chain's last used mark to it: the watched window then reaches `gapLimit` past it. */
export async function markUsed(index: AddressIndex, record: VaultRecord, at: NonNullable<WatchedAddress['bip44']>): Promise<void> {
  const none = { from: 0, derived: [], lastUsed: -1 };
  const update = { 0: none, 1: none, [at.chain]: { from: 0, derived: [], lastUsed: at.index } } as Parameters<AddressIndex['write']>[4];
  await index.write(record.vaultId, record.ledgerId, record.addressFormat, at.account, update);
}
