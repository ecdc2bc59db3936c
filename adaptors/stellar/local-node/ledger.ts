import { createHash } from 'node:crypto';

/**
 * The in-memory state of the local Stellar ledger SIMULATOR: accounts, trustlines, closed
 * ledgers and transaction history. Not stellar-core: it models only what the adaptor's
 * Horizon subset needs, with stellar-core's rules for those parts.
 */

export const STROOPS_PER_XLM = 10_000_000n;
export const MAX_INT64 = 2n ** 63n - 1n;

export interface Trustline {
  balance: bigint;
  limit: bigint;
  lastModifiedLedger: number;
}

export interface AccountEntry {
  id: string;
  balance: bigint;
  sequence: bigint;
  /** Trustlines and data entries count as subentries: each raises the minimum balance by one base reserve. */
  subentries: number;
  /** Keyed `CODE:ISSUER`. */
  trustlines: Map<string, Trustline>;
  /** Data entries (manage_data): name → value of 1 to 64 bytes. */
  data: Map<string, Buffer>;
  lastModifiedLedger: number;
}

export interface LedgerHeader {
  sequence: number;
  hash: string;
  prevHash: string;
  closedAt: number;
  successfulTxCount: number;
  failedTxCount: number;
  operationCount: number;
  baseFee: bigint;
  baseReserve: bigint;
}

export interface TxRecord {
  hash: string;
  ledger: number;
  createdAt: number;
  /** As written in the envelope (`G…` or `M…`). */
  sourceAccount: string;
  sequence: bigint;
  feeCharged: bigint;
  maxFee: bigint;
  operationCount: number;
  successful: boolean;
  /** Horizon's per-operation result codes, for the `transaction_failed` answer. */
  operationCodes: string[];
  envelopeXdr: string;
  resultXdr: string;
  memoType: string;
  memo?: string;
  signatures: string[];
  timeBounds?: { minTime: string; maxTime: string };
  /**
   * Accounts (`G…`) whose history lists it, as Horizon's participants: the source, the fee
   * payer, operation sources, and the accounts created or paid.
   */
  participants: string[];
  /** Fee-bumps (CAP-15): the account that paid, and the wrapped transaction's hash and max fee. */
  feeBump?: { feeAccount: string; innerHash: string; innerMaxFee: bigint; innerSignatures: string[] };
}

/** A transaction waiting in the queue because its fee bid is under the surge price. */
export interface PendingTx {
  envelopeXdr: string;
  /** Fee bid per operation slot (a fee-bump counts one more slot). */
  rate: bigint;
  /** Hash of the outer envelope (the fee-bump's own, or the transaction's). */
  hash: string;
}

export interface LedgerRules {
  baseFee: bigint;
  baseReserve: bigint;
  /** Number of the first ledger; a pubnet-like height makes sequence numbers exceed 2^53 as on the network. */
  firstLedger: number;
}

export function assetKey(code: string, issuer: string): string {
  return `${code}:${issuer}`;
}

export function cloneAccount(a: AccountEntry): AccountEntry {
  return { ...a, trustlines: new Map([...a.trustlines].map(([k, t]) => [k, { ...t }])), data: new Map(a.data) };
}

export class LedgerState {
  readonly accounts = new Map<string, AccountEntry>();
  readonly transactions = new Map<string, TxRecord>();
  readonly ledgers: LedgerHeader[] = [];
  /** Fee-bumps by the hash of the transaction they wrap: Horizon serves them under both hashes. */
  readonly innerIndex = new Map<string, string>();
  /** The queue of transactions bidding under the surge price, by the hash of the (inner) transaction. */
  readonly pending = new Map<string, PendingTx>();
  /** Minimum fee per operation slot a transaction must bid to be included now; undefined = the base fee. */
  surgeFee?: bigint;
  /** Shifts the ledger clock, so tests can pass time bounds without waiting. */
  private clockOffsetMs = 0;

  constructor(readonly rules: LedgerRules) {
    this.ledgers.push(this.header(rules.firstLedger, '0'.repeat(64), 0, 0, 0));
  }

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  advanceClock(seconds: number): void {
    this.clockOffsetMs += seconds * 1000;
  }

  latest(): LedgerHeader {
    return this.ledgers[this.ledgers.length - 1] as LedgerHeader;
  }

  minBalance(a: AccountEntry, extraSubentries = 0): bigint {
    return BigInt(2 + a.subentries + extraSubentries) * this.rules.baseReserve;
  }

  /** Native balance above the reserve: what fees and payments may spend. */
  available(a: AccountEntry): bigint {
    return a.balance - this.minBalance(a);
  }

  /** Closes the next ledger holding `txs` (one per submission here; real ledgers batch). */
  close(txs: TxRecord[] = []): LedgerHeader {
    const prev = this.latest();
    const ok = txs.filter((t) => t.successful);
    const header = this.header(
      prev.sequence + 1,
      prev.hash,
      ok.length,
      txs.length - ok.length,
      ok.reduce((n, t) => n + t.operationCount, 0),
    );
    this.ledgers.push(header);
    // Bounded history of headers; transactions are kept so lookups by hash keep working.
    if (this.ledgers.length > 10_000) this.ledgers.splice(0, this.ledgers.length - 10_000);
    return header;
  }

  ledger(sequence: number): LedgerHeader | undefined {
    const first = this.ledgers[0]?.sequence ?? 1;
    return this.ledgers[sequence - first];
  }

  private header(sequence: number, prevHash: string, ok: number, failed: number, ops: number): LedgerHeader {
    const closedAt = this.now();
    const hash = createHash('sha256').update(`${prevHash}:${sequence}:${closedAt}`).digest('hex');
    return {
      sequence,
      hash,
      prevHash,
      closedAt,
      successfulTxCount: ok,
      failedTxCount: failed,
      operationCount: ops,
      baseFee: this.rules.baseFee,
      baseReserve: this.rules.baseReserve,
    };
  }
}
