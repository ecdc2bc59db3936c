import express, { type Express, type Response, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { AppContext } from './app-context.js';
import { bearerAuth } from './auth.js';
import { errorHandler, notFound } from './error-handler.js';
import { boundedForLog } from '../logger.js';
import { openApiDocument, type DocumentedPath } from './openapi.js';
import { mountRoute, type AnyRouteSpec } from './route.js';
import { API_BASE } from '../api-base.js';
import { coinStatusRoute } from './routes/coin-status-route.js';
import { ledgerRoutes } from './routes/ledger-routes.js';
import { metricsRoute, openApiRoute } from './routes/meta-routes.js';
import { serviceRoutes } from './routes/service-routes.js';
import { vaultRoutes } from './routes/vault-routes.js';

/** `res.locals` key of the fields a route adds to its request's log line. */
export const REQUEST_LOG_FIELDS = 'requestLogFields';

/** Raw body kept for routes that authenticate it (the signing callback's HMAC). */
export interface RawBodyRequest {
  rawBody?: Buffer;
}

export interface AppExtensions {
  /** More route specs (withdrawals, the callback receiver, …), each at its `base` (/api/v1.0 unless set); all are documented. */
  routes?: AnyRouteSpec[];
  /** Extra mounts outside `route()` (the dashboard); what they return is listed in the OpenAPI document. */
  mount?: (app: Express) => DocumentedPath[] | void;
}

function routerOf(specs: AnyRouteSpec[], auth: ReturnType<typeof bearerAuth>): Router {
  const router: Router = express.Router();
  for (const spec of specs) mountRoute(router, spec, auth);
  return router;
}

export function createApp(ctx: AppContext, ext: AppExtensions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  const auth = bearerAuth(ctx.apiKeys);
  const early: AnyRouteSpec[] = [];
  if (ctx.metrics) {
    app.use(ctx.metrics.httpMiddleware());
    // Ahead of the request log: scrapes are frequent and say nothing.
    early.push(metricsRoute(ctx.metrics));
    app.use(routerOf(early, auth));
  }
  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
        res.setHeader('x-request-id', id);
        return id;
      },
      // A hostile caller chooses the URL: the log keeps a bounded prefix of it.
      serializers: { req: (req: { url?: string }) => ({ ...req, url: boundedForLog(req.url, 512) }) },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      // A route names what it did (the callback's outcome and operation) on its request's one line.
      customSuccessObject: (_req, res, line) => ({ ...line, ...(res as unknown as Response).locals?.[REQUEST_LOG_FIELDS] }),
    }),
  );
  app.use(
    express.json({
      limit: ctx.config.bodyLimit,
      verify: (req, _res, buf) => {
        (req as RawBodyRequest).rawBody = buf;
      },
    }),
  );
  const specs = [
    ...serviceRoutes(ctx),
    ...ledgerRoutes(ctx),
    ...vaultRoutes(ctx),
    coinStatusRoute(ctx),
    // Read at request time: the document is built below, once the mounts are known.
    openApiRoute(() => document),
    ...(ext.routes ?? []),
  ];
  // Each route at its own mount point: the wallet layer under /api/v1.0, others (the coin-type status) at the root.
  const bases = [...new Set(specs.map((s) => s.base ?? API_BASE))];
  for (const base of bases) {
    app.use(base || '/', routerOf(specs.filter((s) => (s.base ?? API_BASE) === base), auth));
  }
  const mounted = ext.mount?.(app) ?? [];
  const document = openApiDocument([...early, ...specs], ctx.config.version, mounted);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
