/**
 * Typed errors. Every error a client can see is an AppError subclass carrying its
 * HTTP status, a stable `errCode` and whether a retry may succeed; callers branch on
 * these fields, never on message text. The HTTP layer renders them in the wallet
 * layer's `AppError` shape `{title, details, errCode, type}`.
 */
import { API_BASE } from './api-base.js';

export interface AppErrorOptions {
  /** Extra machine-readable fields rendered beside the standard ones (figures, indexes). */
  fields?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly errCode: string;
  readonly title: string;
  readonly details: string;
  readonly retryable: boolean;
  readonly fields: Record<string, unknown>;

  constructor(status: number, errCode: string, title: string, details: string, retryable = false, options: AppErrorOptions = {}) {
    super(`${title}: ${details}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.errCode = errCode;
    this.title = title;
    this.details = details;
    this.retryable = retryable;
    this.fields = options.fields ?? {};
  }

  /** `type` is a stable path clients can look up, derived from the code. */
  get type(): string {
    return `${API_BASE}/errors/${this.errCode.toLowerCase().replace(/^err_/, '').replace(/_/g, '-')}`;
  }

  toBody(): Record<string, unknown> {
    return { title: this.title, details: this.details, errCode: this.errCode, type: this.type, ...this.fields };
  }
}

/** 422: an argument is unknown or malformed; `details` names the valid values. */
export class InvalidArgumentError extends AppError {
  constructor(details: string, fields?: Record<string, unknown>) {
    super(422, 'ERR_INVALID_ARGUMENTS', 'Invalid arguments', details, false, { fields });
  }
}

/** Helper for the common "unknown X; valid values are …" case. */
export function unknownValue(what: string, value: string, valid: readonly string[]): InvalidArgumentError {
  return new InvalidArgumentError(`Unknown ${what} '${value}'. Valid values: ${valid.length ? valid.join(', ') : '(none configured)'}`, { valid: [...valid] });
}

/** 422: the vault cannot pay for what was asked. */
export class InsufficientFundsError extends AppError {
  constructor(details: string, fields?: Record<string, unknown>) {
    super(422, 'ERR_INSUFFICIENT_FUNDS', 'Insufficient funds', details, false, { fields });
  }
}

export class BadRequestError extends AppError {
  constructor(details: string, errCode = 'ERR_BAD_REQUEST') {
    super(400, errCode, 'Bad request', details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(details = 'A valid API key is required: send "Authorization: Bearer <key>".') {
    super(401, 'ERR_UNAUTHORIZED', 'Unauthorized', details);
  }
}

export class ForbiddenError extends AppError {
  constructor(details: string) {
    super(403, 'ERR_FORBIDDEN', 'Forbidden', details);
  }
}

export class NotFoundError extends AppError {
  constructor(details: string) {
    super(404, 'ERR_NOT_FOUND', 'Not found', details);
  }
}

export class ConflictError extends AppError {
  constructor(details: string, errCode = 'ERR_CONFLICT', fields?: Record<string, unknown>) {
    super(409, errCode, 'Conflict', details, false, { fields });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(details: string) {
    super(413, 'ERR_PAYLOAD_TOO_LARGE', 'Payload too large', details);
  }
}

/** 429: the client sent more requests than its limit allows; `retryAfterSeconds` (and the Retry-After header) says when to retry. */
export class RateLimitedError extends AppError {
  constructor(who: string, retryAfterSeconds: number) {
    super(429, 'ERR_RATE_LIMITED', 'Too many requests', `The request limit for ${who} is reached; retry in ${retryAfterSeconds} s.`, true, {
      fields: { retryAfterSeconds },
    });
  }
}

/** 503: a dependency (Redis, a ledger node, the custody service) is unavailable; retry later. */
export class UnavailableError extends AppError {
  constructor(details: string, cause?: unknown, errCode = 'ERR_UNAVAILABLE') {
    super(503, errCode, 'Service unavailable', details, true, { cause });
  }
}

/** 502: a back end answered, but with something we cannot use. */
export class UpstreamError extends AppError {
  constructor(details: string, retryable: boolean, cause?: unknown, errCode = 'ERR_UPSTREAM') {
    super(502, errCode, 'Upstream error', details, retryable, { cause });
  }
}

/** 501: the adaptor does not implement the operation (see LedgerAdaptor's optional methods). */
export class NotSupportedError extends AppError {
  constructor(details: string) {
    super(501, 'ERR_NOT_SUPPORTED', 'Not supported', details);
  }
}

/** A callback or signature failed verification: 4xx, logged as a security event. */
export class VerificationError extends AppError {
  constructor(details: string, reason: string, status = 400) {
    super(status, 'ERR_VERIFICATION_FAILED', 'Verification failed', details, false, { fields: { reason } });
  }
  get reason(): string {
    return String(this.fields.reason);
  }
}

/** 500: this service broke one of its own rules (a bug, not the request or a node); final, since a retry takes the same path. */
export class InternalError extends AppError {
  constructor(details: string) {
    super(500, 'ERR_INTERNAL', 'Internal error', details, false);
  }
}

/** The transaction was rejected for good by the ledger: the operation ends FAILED. */
export class PermanentLedgerError extends AppError {
  constructor(details: string, errCode = 'ERR_LEDGER_REJECTED') {
    super(422, errCode, 'Rejected by the ledger', details, false);
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Errors worth another attempt: back ends down, timeouts, anything not known to be final. */
export function isRetryable(e: unknown): boolean {
  return e instanceof AppError ? e.retryable : true;
}

/**
 * What a node's refusal of a transaction means, whatever client said it. Each family maps its
 * nodes' texts and codes to one of these once, at its network edge (`adaptors/<family>/network/errors.ts`).
 */
export type RejectionKind =
  | 'already_known'
  | 'nonce_too_low'
  | 'nonce_too_high'
  | 'nonce_taken'
  | 'replacement_underpriced'
  | 'fee_below_base_fee'
  | 'fee_too_low'
  | 'insufficient_funds'
  | 'intrinsic_gas_too_low'
  | 'gas_limit_exceeded'
  | 'wrong_chain'
  | 'pool_full'
  | 'missing_inputs'
  | 'inputs_conflict'
  | 'min_relay_fee'
  | 'rbf_rule'
  | 'dust'
  | 'non_standard'
  | 'not_final'
  | 'ledger_result'
  | 'invalid';

/** `ERR_` code per kind: the stable code clients and the pipeline see. */
const REJECTION_CODES: Record<RejectionKind, string> = {
  already_known: 'ERR_ALREADY_KNOWN',
  nonce_too_low: 'ERR_NONCE_TOO_LOW',
  nonce_too_high: 'ERR_NONCE_TOO_HIGH',
  nonce_taken: 'ERR_NONCE_TAKEN',
  replacement_underpriced: 'ERR_REPLACEMENT_UNDERPRICED',
  fee_below_base_fee: 'ERR_FEE_TOO_LOW',
  fee_too_low: 'ERR_FEE_TOO_LOW',
  insufficient_funds: 'ERR_INSUFFICIENT_FUNDS',
  intrinsic_gas_too_low: 'ERR_INTRINSIC_GAS_TOO_LOW',
  gas_limit_exceeded: 'ERR_GAS_LIMIT_EXCEEDED',
  wrong_chain: 'ERR_WRONG_CHAIN',
  pool_full: 'ERR_POOL_FULL',
  missing_inputs: 'ERR_MISSING_INPUTS',
  inputs_conflict: 'ERR_INPUTS_CONFLICT',
  min_relay_fee: 'ERR_FEE_TOO_LOW',
  rbf_rule: 'ERR_REPLACEMENT_REJECTED',
  dust: 'ERR_DUST',
  non_standard: 'ERR_NON_STANDARD',
  not_final: 'ERR_NOT_FINAL',
  ledger_result: 'ERR_LEDGER_REJECTED',
  invalid: 'ERR_NODE_REJECTED',
};

/**
 * A node refused a transaction. `kind` says why in the pipeline's terms; `retryable` says whether
 * sending the same signed bytes later can succeed soon (a fee under a base fee that may fall, a gap
 * the predecessor will fill, a full pool). `invalidForever` says that the transaction's own bytes can
 * never be valid on this ledger, on any node, at any time (a bad signature, another chain's id, gas
 * below the intrinsic minimum): only then does a refusal prove that a signed withdrawal never pays.
 * Any other refusal (no funds yet, a fee under a node's floor, an account's state in preflight, a
 * lagging node) is an answer for now: the same bytes may still land, sent again or from elsewhere.
 * `details` keeps the node's own words; `node` names the back end that answered, where known.
 */
export class NodeRejectionError extends AppError {
  readonly invalidForever: boolean;

  constructor(
    readonly kind: RejectionKind,
    details: string,
    retryable: boolean,
    fields: Record<string, unknown> = {},
    options: { invalidForever?: boolean } = {},
  ) {
    super(retryable ? 503 : 422, REJECTION_CODES[kind], retryable ? 'Not accepted by the ledger yet' : 'Rejected by the ledger', details, retryable, {
      fields: { reason: kind, ...fields },
    });
    this.invalidForever = !retryable && options.invalidForever === true;
  }
}

/** Whether a node's refusal proves the refused transaction can never land (its own bytes are invalid for good). */
export function provesNeverLands(e: unknown): boolean {
  return e instanceof NodeRejectionError && e.invalidForever;
}
