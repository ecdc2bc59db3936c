import { formatAmount } from '../ledger/amounts.js';
import type { ChainBlock } from '../ledger/deposit-source.js';
import type { VaultStore } from '../vaults/vault-store.js';
import { markUsed } from '../vaults/watch-addresses.js';
import { depositId, type DepositData } from './deposit.js';
import type { Watched } from './watched-set.js';

/** Looks a transfer's address up among the watched ones (the live scanner's whole ledger, a back-fill's one vault). */
export interface WatchLookup {
  get(address: string): Watched | undefined;
}

/**
 * The transfers of a block that are deposits: to a watched address, of some value, not from
 * the same vault. `decimals`: of each configured asset, by symbol (amounts in asset units).
 */
export function findDeposits(ledgerId: string, decimals: ReadonlyMap<string, number>, watched: WatchLookup, block: ChainBlock): DepositData[] {
  const out: DepositData[] = [];
  for (const t of block.transfers) {
    const to = watched.get(t.to);
    if (!to || t.amount <= 0n) continue;
    // The vault paying itself (change, a cancel, a consolidation, a move between its addresses) is no deposit.
    if (t.from.some((f) => watched.get(f)?.vaultId === to.vaultId)) continue;
    const places = decimals.get(t.asset);
    out.push({
      depositId: depositId(ledgerId, t.txid, t.index),
      ledgerId,
      vaultId: to.vaultId,
      address: to.address,
      txid: t.txid,
      index: t.index,
      asset: t.asset,
      credited: t.configured,
      amount: places !== undefined && t.configured ? formatAmount(t.amount, places) : t.amount.toString(),
      baseUnits: t.amount.toString(),
      from: t.from,
      ...(t.memo !== undefined ? { memo: t.memo } : {}),
      ...(t.muxedId !== undefined ? { muxedId: t.muxedId } : {}),
      ...(t.account !== undefined ? { account: t.account } : {}),
      ...(to.bip44 ? { path: `${to.bip44.chain}/${to.bip44.index}` } : {}),
    });
  }
  return out;
}

/** Raises the used mark of each BIP44 address that received; true when one did (the watched window moves). */
export async function raiseUsedMarks(vaults: VaultStore, watched: WatchLookup, found: DepositData[]): Promise<boolean> {
  let moved = false;
  for (const d of found) {
    const w = watched.get(d.address);
    if (!w?.bip44) continue;
    await markUsed(vaults.addresses, w.record, w.bip44);
    moved = true;
  }
  return moved;
}
