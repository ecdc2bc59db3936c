import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { boundedForLog } from '../platform/logger.js';
import { FLOODABLE } from './error-handler.js';

/** `res.locals` key of the fields a route adds to its request's log line. */
export const REQUEST_LOG_FIELDS = 'requestLogFields';

/**
 * One log line per request, once its answer is sent (or the connection closed first): the
 * request id (the caller's `x-request-id` when well formed, else a new one, echoed back), method
 * and URL (a bounded prefix: a hostile caller chooses it), status, time in ms, and the fields
 * the route named in `res.locals[REQUEST_LOG_FIELDS]` (the callback's outcome and operation).
 * Level by status: error from 500, warn from 400 (401 and 429 at info). `req.log`, the request's own logger (the
 * error handler writes through it), is made when first asked for: a child logger for every
 * request, as pino-http makes one, was 5 % of the callback receiver's time.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', id);
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: () => (child ??= logger.child({ reqId: id })) });
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const status = res.statusCode;
      // 401 and 429 at info: the failed-auth throttle warns about them once a minute per address.
      const level = status >= 500 ? 'error' : status >= 400 && !FLOODABLE.has(status) ? 'warn' : 'info';
      const fields = (res.locals as Record<string, object | undefined>)[REQUEST_LOG_FIELDS];
      logger[level](
        {
          reqId: id,
          req: { method: req.method, url: boundedForLog(req.originalUrl, 512) },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
          ...fields,
        },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
