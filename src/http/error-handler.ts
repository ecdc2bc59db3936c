import type { ErrorRequestHandler, RequestHandler } from 'express';
import { boundedForLog } from '../logger.js';
import { AppError, BadRequestError, NotFoundError, PayloadTooLargeError, RateLimitedError, UnavailableError } from '../errors.js';

/** Unknown routes answer 404 in the AppError shape. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`No route ${req.method} ${req.path}`));
};

function isRedisDown(err: unknown): boolean {
  const e = err as { name?: string; code?: string; message?: string };
  return (
    e?.name === 'MaxRetriesPerRequestError' ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(e?.code ?? '') ||
    /Connection is closed|Stream isn't writeable|Command timed out/.test(e?.message ?? '')
  );
}

/** Maps every error to the AppError body; unexpected errors become a 500 without internals. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  let app: AppError;
  const bodyErr = err as { type?: string; status?: number; limit?: number };
  if (err instanceof AppError) app = err;
  else if (bodyErr?.type === 'entity.parse.failed') app = new BadRequestError('The body is not valid JSON.', 'ERR_MALFORMED_JSON');
  else if (bodyErr?.type === 'entity.too.large') app = new PayloadTooLargeError(`The body exceeds the limit of ${bodyErr.limit} bytes.`);
  else if (bodyErr?.status && bodyErr.status >= 400 && bodyErr.status < 500) app = new BadRequestError(String((err as Error).message));
  else if (isRedisDown(err)) app = new UnavailableError('Storage is unavailable; retry later.', err);
  else app = new AppError(500, 'ERR_INTERNAL', 'Internal error', 'The request failed unexpectedly; it was logged.', true, { cause: err });
  const log = (req as { log?: { error: (o: object, m: string) => void; warn: (o: object, m: string) => void } }).log;
  if (app.status >= 500) log?.error({ err }, app.title);
  else log?.warn({ errCode: app.errCode, details: boundedForLog(app.details) }, 'request rejected');
  if (app.retryable && app.status === 503) res.setHeader('Retry-After', '5');
  if (app instanceof RateLimitedError) res.setHeader('Retry-After', String(app.fields.retryAfterSeconds));
  res.status(app.status).json(app.toBody());
};
