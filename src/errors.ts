/**
 * Typed errors. Every error a client can see is an AppError subclass carrying its
 * HTTP status, a stable `errCode` and whether a retry may succeed; callers branch on
 * these fields, never on message text. The HTTP layer renders them in the wallet
 * layer's `AppError` shape `{title, details, errCode, type}`.
 */
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

  constructor(
    status: number,
    errCode: string,
    title: string,
    details: string,
    retryable = false,
    options: AppErrorOptions = {},
  ) {
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
    return `/api/v1.0/errors/${this.errCode.toLowerCase().replace(/^err_/, '').replace(/_/g, '-')}`;
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
  return new InvalidArgumentError(
    `Unknown ${what} '${value}'. Valid values: ${valid.length ? valid.join(', ') : '(none configured)'}`,
    { valid: [...valid] },
  );
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
  constructor(details: string, errCode = 'ERR_CONFLICT') {
    super(409, errCode, 'Conflict', details);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(details: string) {
    super(413, 'ERR_PAYLOAD_TOO_LARGE', 'Payload too large', details);
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

/** The transaction was rejected for good by the ledger: the operation ends FAILED. */
export class PermanentLedgerError extends AppError {
  constructor(details: string, errCode = 'ERR_LEDGER_REJECTED') {
    super(422, errCode, 'Rejected by the ledger', details, false);
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
