import { Recent } from './recent.js';

/** What combine learned of a transaction it assembled: who signed it and its nonce. */
export interface AssembledTx {
  txid: string;
  serialized: string;
  from: string;
  nonce: number;
}

/**
 * The transactions this process assembled lately, by txid. combine has rebuilt each from the
 * crafted state, with the signature checked against the vault's key when it came in;
 * broadcast, handed the same bytes (compared whole), takes the signer and nonce from here
 * instead of parsing the bytes and recovering the key, which was a third of the worker's CPU
 * per withdrawal in a drain. Bytes from anywhere else (another process assembled them, a
 * restart, a replacement) are parsed and checked as before. Bounded: the oldest go first.
 */
export class AssembledTxs {
  private readonly byTxid: Recent<AssembledTx>;

  constructor(max = 4096) {
    this.byTxid = new Recent(max);
  }

  remember(tx: AssembledTx): void {
    this.byTxid.set(tx.txid.toLowerCase(), tx);
  }

  /** The entry for exactly these bytes under this txid, if this process assembled them. */
  find(txid: string, serialized: string): AssembledTx | undefined {
    const tx = this.byTxid.get(txid.toLowerCase());
    return tx && tx.serialized === serialized ? tx : undefined;
  }
}
