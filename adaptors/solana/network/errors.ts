import type { AppError } from '../../../src/platform/errors.js';
import { PermanentLedgerError, UnavailableError, UpstreamError } from '../../../src/platform/errors.js';

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

/** The transaction's blockhash or durable nonce is no longer accepted: it can never land. */
export class ExpiredTransactionError extends PermanentLedgerError {
  constructor(message: string) {
    super(message, 'ERR_TX_EXPIRED');
  }
}

const ALREADY = /AlreadyProcessed|already been processed/i;
const EXPIRED = /BlockhashNotFound|Blockhash not found|BlockhashNotExpired|invalid nonce|NonceNoRecentBlockhashes|advance nonce/i;
const RATE = /rate limit|too many requests/i;

/**
 * Solana node errors as typed errors, mapped here once. -32002 is a failed preflight
 * (the transaction would fail or is stale): permanent for that signed transaction, except
 * "already processed", which the caller treats as success. -32005 (node behind) and rate
 * limits are worth retrying; unknown methods and bad parameters are not.
 */
export function mapNodeError(method: string, err: RpcErrorBody): AppError {
  const message = `Solana RPC ${method}: ${err.message} (${err.code})`;
  const detail = `${err.message} ${JSON.stringify(err.data ?? '')}`;
  if (ALREADY.test(detail)) return new AlreadyProcessedError(message);
  if (EXPIRED.test(detail)) return new ExpiredTransactionError(message);
  if (err.code === -32005 || err.code === -32004 || err.code === -32603 || RATE.test(err.message)) return new UnavailableError(message);
  if (err.code === -32002 || err.code === -32003) return new PermanentLedgerError(message);
  return new UpstreamError(message, false);
}
