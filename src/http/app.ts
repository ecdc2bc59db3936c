import type { RequestListener } from 'node:http';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { AppContext } from './app-context.js';
import { bearerAuth } from './auth.js';
import { AuthThrottle } from './auth-throttle.js';
import { proxyTrust, trustProxiesOf } from './client-address.js';
import { errorHandler, notFound } from './error-handler.js';
import { HealthCache } from './health-cache.js';
import { leanLane } from './lean-lane.js';
import { requestLog } from './request-log.js';
import { openApiDocument, type DocumentedPath } from './openapi.js';
import { mountRoute, type AnyRouteSpec, type BodyLimits } from './route.js';
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

function routerOf(specs: AnyRouteSpec[], auth: ReturnType<typeof bearerAuth>, limits: BodyLimits): Router {
  const router: Router = express.Router();
  for (const spec of specs) mountRoute(router, spec, auth, limits);
  return router;
}

/** The failed-authentication throttle of AUTH_FAILURES_PER_MINUTE and AUTH_FAILURES_BURST. */
export function authThrottleOf(ctx: Pick<AppContext, 'redis' | 'prefix' | 'logger' | 'metrics' | 'config'>): AuthThrottle {
  const limit = { perMinute: ctx.config.authFailuresPerMinute, burst: ctx.config.authFailuresBurst };
  return new AuthThrottle({ redis: ctx.redis, prefix: ctx.prefix, logger: ctx.logger, metrics: ctx.metrics, limit });
}

/**
 * The service's HTTP answer to every request: the routes marked `lean` ahead of Express when
 * the request is plain JSON (`lean-lane.ts`), everything else through the Express app.
 */
export function createApp(context: AppContext, ext: AppExtensions = {}): RequestListener {
  // One cache of dependency checks for every status route of this app.
  const ctx: AppContext = { ...context, healthCache: context.healthCache ?? new HealthCache(context.config.healthCacheMs) };
  const app = express();
  app.disable('x-powered-by');
  const trust = proxyTrust(ctx.config.trustProxy);
  // `req.ip` by the same rule as `clientAddress`, which every lane reads.
  app.set('trust proxy', trust);
  const auth = bearerAuth(ctx.apiKeys, authThrottleOf(ctx), async (vaultId) => (await ctx.vaults.find(vaultId))?.ledgerId);
  const limits: BodyLimits = { authenticated: ctx.config.bodyLimit, open: ctx.config.openBodyLimit };
  const early: AnyRouteSpec[] = [];
  // What runs around every route, in both lanes.
  const around: RequestHandler[] = [];
  if (ctx.metrics) {
    const latency = ctx.metrics.httpMiddleware();
    around.push(latency);
    app.use(latency);
    // Ahead of the request log: scrapes are frequent and say nothing.
    early.push(metricsRoute(ctx.metrics));
    app.use(routerOf(early, auth, limits));
  }
  const log = requestLog(ctx.logger);
  around.push(log);
  app.use(log);
  // No body parser here: each route reads its body once its path is known and its caller admitted (`mountRoute`).
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
    app.use(
      base || '/',
      routerOf(
        specs.filter((s) => (s.base ?? API_BASE) === base),
        auth,
        limits,
      ),
    );
  }
  const mounted = ext.mount?.(app) ?? [];
  const document = openApiDocument([...early, ...specs], ctx.config.version, mounted);
  app.use(notFound);
  app.use(errorHandler);
  // Every route in the order Express mounts it: the lane answers a request only where Express would give it to the same route.
  const mountOrder = [...early, ...bases.flatMap((base) => specs.filter((s) => (s.base ?? API_BASE) === base))];
  const lanes = leanLane(mountOrder, { limits, middleware: around, auth }, app);
  return (req, res) => {
    trustProxiesOf(req, trust);
    lanes(req, res);
  };
}
