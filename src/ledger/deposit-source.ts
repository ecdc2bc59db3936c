/**
 * How a ledger shows what arrives at addresses: the deposit scanner (src/deposits/) reads the
 * chain through this, one block (ledger, slot) at a time, and decides itself what is a deposit.
 * A family offers it as `LedgerAdaptor.depositSource`; a ledger without one has no deposits.
 *
 * Conventions: heights are the chain's own numbering (block number, ledger sequence, slot);
 * hashes are the ledger's own spelling; amounts are bigint base units. A source reports every
 * value transfer it can read in a block (or, given `watching`, at least those to watched
 * addresses): the scanner filters, so a source need not know about vaults.
 */

/** One movement of value to one address inside a transaction. */
export interface ChainTransfer {
  /** The transaction id as the ledger names it. */
  txid: string;
  /**
   * Where in the transaction the value arrives, unique within it and the same in whatever block
   * the transaction lands: `out:3` (Bitcoin output), `log:12` (an ERC-20 Transfer log's index in
   * the transaction), `value` (Ethereum's native value), `op:0` (Stellar operation),
   * `sol:1`/`spl:3` (Solana: the receiving account's index among the transaction's account
   * keys, for lamports or tokens). With the txid it keys the deposit.
   */
  index: string;
  /** The address that receives (a Solana token account is reported as its owner, see `account`). */
  to: string;
  /** Symbol of a configured asset, or the ledger's id of a token that is not configured (then `configured` is false). */
  asset: string;
  /** False for a token the ledger is not configured with: recorded, never credited. */
  configured: boolean;
  amount: bigint;
  /** Addresses the value came from (Bitcoin: the spent outputs' addresses). Used to tell a vault's own transfers. */
  from: string[];
  /** The memo the transaction carries (Stellar; Solana's Memo program), as text. */
  memo?: string;
  /** The id of a muxed destination (Stellar `M…`), when the payment named one. */
  muxedId?: string;
  /** The account that received when it is not `to` itself (a Solana associated token account of `to`). */
  account?: string;
}

/** One block of the best chain as the source saw it. */
export interface ChainBlock {
  height: number;
  hash: string;
  /** The hash of the block at `height - 1` this one builds on: how the scanner finds reorganisations. */
  parentHash: string;
  /** Block time, ms since epoch. */
  time: number;
  transfers: ChainTransfer[];
}

export interface ChainTip {
  height: number;
  hash: string;
}

export interface DepositSource {
  /** The best chain's latest block. Throws (UnavailableError) when the node cannot tell. */
  tip(): Promise<ChainTip>;
  /**
   * The block at `height` of the best chain, with its transfers; undefined when the node has
   * none there (yet). `watching` says whether an address is watched: a source whose node can
   * filter by address (eth_getLogs topics) may use it, others may ignore it.
   */
  block(height: number, watching?: (address: string) => boolean): Promise<ChainBlock | undefined>;
  /** How the source compares addresses: Ethereum's are case-insensitive (lower-cased here); others as they are. */
  normalize?(address: string): string;
}
