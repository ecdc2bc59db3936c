import type { RequestListener } from 'node:http';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { AppContext } from './app-context.js';
import { bearerAuth } from './auth.js';
import { errorHandler, notFound } from './error-handler.js';
import { leanLane } from './lean-lane.js';
import { requestLog } from './request-log.js';
import { openApiDocument, type DocumentedPath } from './openapi.js';
import { mountRoute, type AnyRouteSpec } from './route.js';
import { API_BASE } from '../platform/api-base.js';
import { coinStatusRoute } from './routes/coin-status-route.js';
import { ledgerRoutes } from './routes/ledger-routes.js';
import { metricsRoute, openApiRoute } from './routes/meta-routes.js';
import { serviceRoutes } from './routes/service-routes.js';
import { vaultRoutes } from './routes/vault-routes.js';

export { REQUEST_LOG_FIELDS } from './request-log.js';

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

/**
 * The service's HTTP answer to every request: the routes marked `lean` ahead of Express when
 * the request is plain JSON (`lean-lane.ts`), everything else through the Express app.
 */
export function createApp(ctx: AppContext, ext: AppExtensions = {}): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  const auth = bearerAuth(ctx.apiKeys, async (vaultId) => (await ctx.vaults.find(vaultId))?.ledgerId);
  const early: AnyRouteSpec[] = [];
  // What runs around every route, in both lanes.
  const around: RequestHandler[] = [];
  if (ctx.metrics) {
    const latency = ctx.metrics.httpMiddleware();
    around.push(latency);
    app.use(latency);
    // Ahead of the request log: scrapes are frequent and say nothing.
    early.push(metricsRoute(ctx.metrics));
    app.use(routerOf(early, auth));
  }
  const log = requestLog(ctx.logger);
  around.push(log);
  app.use(log);
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
  return leanLane(specs, { bodyLimit: ctx.config.bodyLimit, middleware: around }, app);
}
