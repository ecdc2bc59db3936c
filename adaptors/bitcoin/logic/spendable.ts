import type { BitcoinBackend, Utxo } from '../network/backend.js';

/**
 * The rule for unconfirmed funds: **confirmed plus own unconfirmed change.**
 *
 * An address's spendable coins (what balances report and withdrawals may select) are its
 * unspent outputs that are either confirmed, or unconfirmed but created by a transaction
 * whose inputs all come from the `own` addresses (the vault's change coming back). Coins
 * already spent by a mempool transaction are excluded. Unconfirmed deposits from others are
 * not counted until mined: they can still be replaced or dropped. With the Bitcoin Core back
 * end (`scantxoutset` sees only the confirmed UTXO set), own change counts once mined.
 *
 * Own unconfirmed change carries what its transaction spends (`parentInputs`), so that a
 * withdrawal spending it can later tell that transaction replaced from merely dropped.
 */
export async function spendableUtxos(backend: BitcoinBackend, addresses: string[], own: Iterable<string>): Promise<Utxo[]> {
  const ownSet = new Set(own);
  const all = await backend.utxos(addresses);
  const pendingTxids = [...new Set(all.filter((u) => !u.confirmed).map((u) => u.txid))];
  const ownTx = new Map<string, string[]>();
  await Promise.all(
    pendingTxids.map(async (txid) => {
      const from = await backend.prevouts(txid);
      if (from.length > 0 && from.every((p) => ownSet.has(p.address)))
        ownTx.set(
          txid,
          from.map((p) => `${p.txid}:${p.vout}`),
        );
    }),
  );
  return all.flatMap((u) => {
    if (u.confirmed) return [u];
    const parentInputs = ownTx.get(u.txid);
    return parentInputs ? [{ ...u, parentInputs }] : [];
  });
}
