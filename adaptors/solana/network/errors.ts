import type { AppError, RejectionKind } from '../../../src/platform/errors.js';
import { NodeRejectionError, PermanentLedgerError, UnavailableError, UpstreamError } from '../../../src/platform/errors.js';

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** The node already executed this very transaction: a repeat broadcast, not a failure. */
export class AlreadyProcessedError extends UpstreamError {
  constructor(message: string) {
    super(message, false, undefined, 'ERR_ALREADY_PROCESSED');
  }
}

/**
 * The node no longer accepts the transaction's blockhash or durable nonce. Its own word is not
 * proof (a node behind has not seen the blockhash yet; our landed transaction gets the same
 * answer): the broadcast asks landing.ts, which decides.
 */
export class ExpiredTransactionError extends PermanentLedgerError {
  constructor(message: string) {
    super(message, 'ERR_TX_EXPIRED');
  }
}

/** The node has no block at this slot (yet): beyond its root, its status not complete (-32004, -32014). */
export class BlockNotAvailableError extends UnavailableError {}

/**
 * The slot has no block on the node's rooted chain (-32007, -32009): skipped by its leader, or
 * missing because the node started from a later snapshot (the same answer; the deposit source
 * tells them apart by the parent it then looks for).
 */
export class SlotSkippedError extends UpstreamError {
  constructor(message: string) {
    super(message, false, undefined, 'ERR_SLOT_SKIPPED');
  }
}

const ALREADY = /AlreadyProcessed|already been processed/i;
const EXPIRED = /BlockhashNotFound|Blockhash not found|BlockhashNotExpired|invalid nonce|NonceNoRecentBlockhashes|advance nonce/i;
const RATE = /rate limit|too many requests/i;

/**
 * A refusal of `sendTransaction`, as Agave answers it: the JSON-RPC code, what its text (and the
 * `data` it carries: the simulation's error and logs) matches, and what it proves.
 * `invalidForever` only where the wire bytes themselves can never be valid: a signature that
 * does not verify over the message, a transaction that does not decode or sanitize. A failed
 * preflight (-32002) is the simulation of one node at its own slot: a node behind has not seen
 * the vault's funding, the recipient's token account, the nonce account; accounts change. It
 * proves nothing about the signed bytes, which may land later or through another node.
 */
export interface SolanaRefusalRow {
  code: number;
  pattern: RegExp;
  kind: RejectionKind;
  invalidForever: boolean;
  /** Agave's own words, for the tests. */
  examples: { message: string; data?: unknown }[];
}

export const SOLANA_SEND_REFUSALS: readonly SolanaRefusalRow[] = [
  {
    code: -32003,
    pattern: /signature verification failure|signature length mismatch/i,
    kind: 'invalid',
    invalidForever: true,
    examples: [{ message: 'Transaction signature verification failure' }],
  },
  {
    code: -32006,
    pattern: /precompile verification failure/i,
    kind: 'invalid',
    invalidForever: true,
    examples: [{ message: 'Transaction precompile verification failure InvalidAccountIndex' }],
  },
  {
    code: -32602,
    pattern: /invalid transaction|failed to deserialize|failed to sanitize/i,
    kind: 'invalid',
    invalidForever: true,
    examples: [
      { message: 'invalid transaction: Transaction failed to sanitize accounts offsets correctly' },
      { message: 'failed to deserialize solana_transaction::versioned::VersionedTransaction: io error: failed to fill whole buffer' },
    ],
  },
  // Preflight errors that are the message's own: the same on every node, at every slot.
  {
    code: -32002,
    pattern: /SanitizeFailure|SignatureFailure|did not pass signature verification|failed to sanitize|AccountLoadedTwice|Account loaded twice/i,
    kind: 'invalid',
    invalidForever: true,
    examples: [
      { message: 'Transaction simulation failed: Transaction did not pass signature verification', data: { err: 'SignatureFailure' } },
      { message: 'Transaction simulation failed: Account loaded twice', data: { err: 'AccountLoadedTwice' } },
    ],
  },
  {
    code: -32002,
    pattern: /insufficient (funds|lamports)|no record of a prior credit|InsufficientFunds/i,
    kind: 'insufficient_funds',
    invalidForever: false,
    examples: [
      {
        message: 'Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1',
        data: { err: { InstructionError: [2, { Custom: 1 }] }, logs: ['Transfer: insufficient lamports 0, need 100000000'] },
      },
      { message: 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.', data: { err: 'AccountNotFound' } },
      { message: 'Transaction simulation failed: Insufficient funds for fee', data: { err: 'InsufficientFundsForFee' } },
      {
        message: 'Transaction simulation failed: Transaction results in an account (1) with insufficient funds for rent',
        data: { err: { InsufficientFundsForRent: { account_index: 1 } } },
      },
    ],
  },
  {
    code: -32002,
    pattern: /./,
    kind: 'ledger_result',
    invalidForever: false,
    examples: [
      {
        message: 'Transaction simulation failed: Error processing Instruction 2: invalid account data for instruction',
        data: { err: { InstructionError: [2, 'InvalidAccountData'] } },
      },
      {
        message: 'Transaction simulation failed: Transaction loads an address table account that doesn\u2019t exist',
        data: { err: 'AddressLookupTableNotFound' },
      },
    ],
  },
];

/** The row of a sendTransaction refusal, if it is one the table knows. */
export function sendRefusalRow(err: RpcErrorBody): SolanaRefusalRow | undefined {
  const detail = `${err.message} ${JSON.stringify(err.data ?? '')}`;
  return SOLANA_SEND_REFUSALS.find((r) => r.code === err.code && r.pattern.test(detail));
}

/** The host of the RPC URL, as a refusal names the node that answered: never its path or query, where providers put keys. */
export function nodeHost(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Solana node errors as typed errors, mapped here once. "Already processed" is success for the
 * caller; "blockhash not found" and kin go to landing.ts; a refusal of sendTransaction is a
 * NodeRejectionError from SOLANA_SEND_REFUSALS (invalid forever only for the bytes' own faults);
 * -32005 (node behind), -32004 and rate limits are worth retrying; unknown methods and bad
 * parameters are not.
 */
export function mapNodeError(method: string, err: RpcErrorBody, node?: string): AppError {
  const message = `Solana RPC ${method}: ${err.message} (${err.code})`;
  const detail = `${err.message} ${JSON.stringify(err.data ?? '')}`;
  if (ALREADY.test(detail)) return new AlreadyProcessedError(message);
  if (EXPIRED.test(detail)) return new ExpiredTransactionError(message);
  if (err.code === -32004 || err.code === -32014) return new BlockNotAvailableError(message);
  if (err.code === -32007 || err.code === -32009) return new SlotSkippedError(message);
  if (err.code === -32005 || err.code === -32603 || RATE.test(err.message)) return new UnavailableError(message);
  const row = method === 'sendTransaction' ? sendRefusalRow(err) : undefined;
  if (row) return new NodeRejectionError(row.kind, message, false, node ? { node } : {}, { invalidForever: row.invalidForever });
  if (method === 'sendTransaction' && (err.code === -32002 || err.code === -32003))
    return new NodeRejectionError('ledger_result', message, false, node ? { node } : {});
  return new UpstreamError(message, false);
}
