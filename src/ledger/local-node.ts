/** The development nodes a family can bring for the sandbox profile (`LedgerFamily.localNode`), and their mining controls. */

/**
 * A local development node a family can run for the sandbox profile (started by
 * `LedgerFamily.localNode`), with what the sandbox needs to configure and fund it.
 */
export interface LocalLedgerNode {
  /** The ledger id it serves (`solanadev`). */
  ledgerId: string;
  /** That ledger's options, as the family's `optionsSchema` takes them. */
  options: Record<string, unknown>;
  /** One line for the sandbox banner: what runs where. */
  description: string;
  /** Sends `units` base units of `asset` (a symbol of the ledger) to `address`; returns a reference. */
  faucet(address: string, asset: string, units: bigint): Promise<string>;
  /**
   * Optional: control of the node's block production, for `POST /sandbox/mining` (stuck,
   * replaced, dropped and reorganised withdrawals on demand). Absent: the node offers none.
   */
  mining?: LocalNodeMining;
  /**
   * Optional: how deep the sandbox counts a deposit on this node (DEPOSIT_CONFIRMATIONS), when it
   * should differ from the ledger's `confirmations`: deeper than one block lets a reorganisation
   * on demand revert a deposit before it is confirmed.
   */
  depositConfirmations?: number;
  stop(): Promise<void>;
}

/** What `POST /sandbox/mining` asks of a development node. */
export type MiningAction = 'pause' | 'resume' | 'mine' | 'reorg';

/**
 * Control of a development node's block production. Each action is optional: a node offers
 * the ones it can do, and the sandbox answers 422 naming them for the others.
 */
export interface LocalNodeMining {
  /** Stops producing blocks: sent transactions wait (the node keeps them). */
  pause?(): Promise<void>;
  /** Produces blocks again as at start. */
  resume?(): Promise<void>;
  /** Produces `blocks` blocks now, paused or not. */
  mine?(blocks: number): Promise<void>;
  /** Replaces the last `depth` blocks with as many new ones that leave out their transactions. */
  reorg?(depth: number): Promise<void>;
  /** Whether block production is paused, and the best chain's height. */
  state(): Promise<{ paused: boolean; height: number }>;
}
