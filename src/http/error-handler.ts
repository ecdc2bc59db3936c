import type { ErrorRequestHandler, RequestHandler } from 'express';
import { boundedForLog } from '../platform/logger.js';
import { AppError, BadRequestError, NotFoundError, PayloadTooLargeError, RateLimitedError, UnavailableError } from '../platform/errors.js';

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

/** The body parser's refusals, in the words every lane answers them with. */
export const bodyTooLarge = (limit: number | string): AppError => new PayloadTooLargeError(`The body exceeds the limit of ${limit} bytes.`);
export const malformedJson = (): AppError => new BadRequestError('The body is not valid JSON.', 'ERR_MALFORMED_JSON');

/** Any error as the AppError it answers with; unexpected errors become a 500 without internals. */
export function appErrorOf(err: unknown): AppError {
  const bodyErr = err as { type?: string; status?: number; limit?: number };
  if (err instanceof AppError) return err;
  if (bodyErr?.type === 'entity.parse.failed') return malformedJson();
  if (bodyErr?.type === 'entity.too.large') return bodyTooLarge(bodyErr.limit ?? 'the');
  if (bodyErr?.status && bodyErr.status >= 400 && bodyErr.status < 500) return new BadRequestError(String((err as Error).message));
  if (isRedisDown(err)) return new UnavailableError('Storage is unavailable; retry later.', err);
  return new AppError(500, 'ERR_INTERNAL', 'Internal error', 'The request failed unexpectedly; it was logged.', true, { cause: err });
}

/** Refusals a caller can repeat at will and that are logged elsewhere in bounded form: 401, 429. */
export const FLOODABLE = new Set([401, 429]);

type RequestLogger = { error: (o: object, m: string) => void; warn: (o: object, m: string) => void; debug: (o: object, m: string) => void };

/**
 * Logs a refusal through the request's own logger and returns the headers its answer carries
 * (Retry-After), for every lane that answers requests (Express, lean-lane.ts).
 */
export function reportError(req: unknown, err: unknown, app: AppError): Record<string, string> {
  const log = (req as { log?: RequestLogger }).log;
  if (app.status >= 500) log?.error({ err }, app.title);
  // A flood of bad keys or of throttled requests would be a flood of warnings: the failed-auth
  // throttle warns once a minute per client address instead (`auth-throttle.ts`).
  else if (FLOODABLE.has(app.status)) log?.debug({ errCode: app.errCode, details: boundedForLog(app.details) }, 'request rejected');
  else log?.warn({ errCode: app.errCode, details: boundedForLog(app.details) }, 'request rejected');
  if (app instanceof RateLimitedError) return { 'Retry-After': String(app.fields.retryAfterSeconds) };
  if (app.retryable && app.status === 503) return { 'Retry-After': '5' };
  return {};
}

/** Maps every error to the AppError body. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const app = appErrorOf(err);
  res.set(reportError(req, err, app));
  res.status(app.status).json(app.toBody());
};
