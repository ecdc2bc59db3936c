/** What combine learned of a transaction it assembled: who signed it and its nonce. */
export interface AssembledTx {
  txid: string;
  serialized: string;
  from: string;
  nonce: number;
}

/**
 * The transactions this process assembled lately, by txid. combine has rebuilt each from the
 * crafted state and recovered its signer; broadcast, handed the same bytes (compared whole),
 * takes the signer and nonce from here instead of parsing the bytes and recovering the key
 * again, which was a third of the worker's CPU per withdrawal in a drain. Bytes from anywhere
 * else (another process assembled them, a restart, a replacement) are parsed and checked as
 * before. Bounded: the oldest entries go first.
 */
export class AssembledTxs {
  private readonly byTxid = new Map<string, AssembledTx>();

  constructor(private readonly max = 4096) {}

  remember(tx: AssembledTx): void {
    const key = tx.txid.toLowerCase();
    this.byTxid.delete(key);
    this.byTxid.set(key, tx);
    if (this.byTxid.size > this.max) this.byTxid.delete(this.byTxid.keys().next().value as string);
  }

  /** The entry for exactly these bytes under this txid, if this process assembled them. */
  find(txid: string, serialized: string): AssembledTx | undefined {
    const tx = this.byTxid.get(txid.toLowerCase());
    return tx && tx.serialized === serialized ? tx : undefined;
  }
}
