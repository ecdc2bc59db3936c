import express, { type Express, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { AppContext } from './app-context.js';
import { bearerAuth } from './auth.js';
import { errorHandler, notFound } from './error-handler.js';
import { boundedForLog } from '../logger.js';
import { openApiDocument } from './openapi.js';
import { metricsHandler } from '../metrics/metrics.js';
import { mountRoute, type AnyRouteSpec } from './route.js';
import { ledgerRoutes } from './routes/ledger-routes.js';
import { serviceRoutes } from './routes/service-routes.js';
import { vaultRoutes } from './routes/vault-routes.js';

export const API_BASE = '/api/v1.0';

/** Raw body kept for routes that authenticate it (the signing callback's HMAC). */
export interface RawBodyRequest {
  rawBody?: Buffer;
}

export interface AppExtensions {
  /** More route specs under /api/v1.0 (withdrawals, the callback receiver, …). */
  routes?: AnyRouteSpec[];
  /** Extra mounts outside /api/v1.0 (the dashboard). */
  mount?: (app: Express) => void;
}

export function createApp(ctx: AppContext, ext: AppExtensions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  if (ctx.metrics) {
    app.use(ctx.metrics.httpMiddleware());
    // Open like /status: scraped from inside the network; it carries counts, never secrets or ids.
    app.get('/metrics', metricsHandler(ctx.metrics));
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
  const auth = bearerAuth(ctx.apiKeys);
  const specs = [...serviceRoutes(ctx), ...ledgerRoutes(ctx), ...vaultRoutes(ctx), ...(ext.routes ?? [])];
  const router: Router = express.Router();
  for (const spec of specs) mountRoute(router, spec, auth);
  const document = openApiDocument(specs, API_BASE, ctx.config.version);
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use(API_BASE, router);
  ext.mount?.(app);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
