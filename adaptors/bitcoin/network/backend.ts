/**
 * What the Bitcoin adaptor needs from a chain back end. Esplora and Bitcoin Core implement
 * it; both answer in these shapes so the logic never sees which one it talks to.
 */

export interface Utxo {
  txid: string;
  vout: number;
  /** Satoshis. */
  value: bigint;
  address: string;
  confirmed: boolean;
  blockHeight?: number;
  /**
   * For an unconfirmed coin: the outputs (`txid:vout`) its transaction spends. Once that
   * transaction is gone, one of them spent by another transaction says it was replaced.
   */
  parentInputs?: string[];
}

/** An output a transaction spends, and the address that held it. */
export interface Prevout {
  txid: string;
  vout: number;
  address: string;
}

export interface BackendTxStatus {
  confirmed: boolean;
  blockHeight?: number;
}

/** Whether an output is spent, by which transaction, and whether that spender is in a block. */
export interface Outspend {
  spent: boolean;
  /** The spending transaction, when the back end names it (Esplora does, Core does not). */
  txid?: string;
  /**
   * Whether the spending transaction is in a block: `false` when it is seen only in a mempool
   * (which may be a lagging instance's, holding a replacement the network never mined);
   * undefined when the back end cannot tell.
   */
  confirmed?: boolean;
  /** The height of the spender's block, when the back end names it (Esplora does, Core's gettxout does not). */
  blockHeight?: number;
}

/** A transaction's status and the spends of some outpoints, all read from one node at one moment. */
export interface StatusAndSpends {
  status: BackendTxStatus | undefined;
  spends: Outspend[];
}

/** The node refused a transaction; `reason` is its own text (e.g. `bad-txns-inputs-missingorspent`). */
export class BroadcastRejected extends Error {
  constructor(
    readonly reason: string,
    readonly code?: number,
  ) {
    super(`transaction rejected: ${reason}`);
    this.name = 'BroadcastRejected';
  }
}

export interface BitcoinBackend {
  readonly kind: 'esplora' | 'core';
  /** The back end's host, as refusals name it: never its path, query or credentials. */
  readonly node?: string;
  tipHeight(): Promise<number>;
  /** Hash of block 0, to check the back end's network. */
  genesisHash(): Promise<string>;
  /**
   * Unspent outputs of each address, mempool-aware where the back end can be: outputs spent by
   * a mempool transaction are left out. Esplora lists unconfirmed outputs too; Core's
   * `scantxoutset` sees only the confirmed UTXO set.
   */
  utxos(addresses: string[]): Promise<Utxo[]>;
  /** The outputs a transaction spends, with the addresses that held them (for the own-change rule). */
  prevouts(txid: string): Promise<Prevout[]>;
  /** Whether each address ever received or sent, when the back end can tell; undefined otherwise. */
  addressesUsed(addresses: string[]): Promise<boolean[] | undefined>;
  /** Fee rate in sat/vB for confirmation within `targetBlocks`, or undefined when the node has no estimate. */
  feeRate(targetBlocks: number): Promise<number | undefined>;
  /**
   * Sends raw tx hex (`txid` is its id); `alreadyKnown` when the node held these very bytes
   * already (Core answers such a send as it answers a new one). Throws BroadcastRejected when
   * the node refuses it.
   */
  broadcast(hex: string, txid: string): Promise<{ txid: string; alreadyKnown: boolean }>;
  /**
   * Undefined when the back end does not know the transaction. A back end that cannot tell
   * (Core without a synced txindex) throws a retryable error instead: absence is evidence.
   */
  txStatus(txid: string): Promise<BackendTxStatus | undefined>;
  /** Whether output `vout` of `txid` is spent (mempool or chain), and by which transaction when the back end can tell. */
  outspend(txid: string, vout: number): Promise<Outspend>;
  /**
   * `txStatus(txid)` and `outspend` of each outpoint in one request, so one node answers all
   * (Core: one JSON-RPC batch; behind a balancer, separate calls may reach nodes at different
   * heights). Absent where the back end has no such request; then the calls are made apart.
   */
  statusAndSpends?(txid: string, outpoints: { txid: string; vout: number }[]): Promise<StatusAndSpends>;
  /**
   * The transaction spending output `vout` of `txid` in one of the newest `depth` blocks, and
   * that block's confirmations as the node that returned the block counts them (a block off its
   * best chain counts none); undefined when none of them holds it. For a back end whose
   * `outspend` names no block (Core's gettxout): the depth of a spend is proof of a conflict.
   */
  spendInRecentBlocks?(txid: string, vout: number, depth: number): Promise<{ spender: string; confirmations: number } | undefined>;
  /** Why the back end cannot answer `txStatus` for mined transactions (e.g. no txindex), or undefined when it can. */
  indexProblem?(): Promise<string | undefined>;
  /** The best chain's tip: height and hash (for the deposit scanner). Absent where the back end cannot read blocks. */
  tip?(): Promise<{ height: number; hash: string }>;
  /** The best chain's block at `height` with every transaction's outputs and its inputs' addresses; undefined past the tip. */
  blockAt?(height: number): Promise<BackendBlock | undefined>;
}

/** A block as the deposit scanner reads it. */
export interface BackendBlock {
  hash: string;
  height: number;
  parentHash: string;
  /** Seconds since epoch. */
  time: number;
  txs: {
    txid: string;
    coinbase: boolean;
    /** Addresses of the outputs the inputs spend (those with a standard script). */
    from: string[];
    outputs: { address?: string; value: bigint }[];
  }[];
}
