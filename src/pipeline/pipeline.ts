import type { Express } from 'express';
import { CustodyClient } from '../custody/custody-client.js';
import { mountDashboard } from '../http/dashboard.js';
import type { DocumentedPath } from '../http/openapi.js';
import type { AnyRouteSpec } from '../http/route.js';
import { callbackRoute } from '../http/routes/callback-route.js';
import { withdrawalRoutes } from '../http/routes/withdrawal-routes.js';
import { apiKeyRecords, type Core } from '../service.js';
import { Idempotency } from './idempotency.js';
import { OperationStore } from './operation-store.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { createQueues } from './queues.js';
import { startWorkers, type Workers } from './workers.js';

export interface Pipeline {
  deps: PipelineDeps;
  routes: AnyRouteSpec[];
  /** Mounts the dashboard; returns its paths for the OpenAPI document. */
  mount(app: Express): DocumentedPath[];
  startWorkers(): Promise<Workers>;
  close(): Promise<void>;
}

/** The signing loop built from the core: custody connector, operation store, queues, routes. */
export function createPipeline(core: Core): Pipeline {
  const { config, logger } = core;
  if (!config.custodyUrl) throw new Error('CUSTODY_URL is not configured');
  const custody = new CustodyClient({ baseUrl: config.custodyUrl, apiKey: config.custodyApiKey, fetch, logger });
  const queues = createQueues(core.redis, config);
  // Without a listener BullMQ prints every connection error raw on stderr. The shared client
  // (connectRedis) already logs each outage once, so these repeats only go to debug.
  for (const q of queues.all()) q.on('error', (err) => logger.debug({ err: err.message, queue: q.name }, 'queue connection error'));
  const deps: PipelineDeps = { config, logger, store: new OperationStore(core.redis, core.prefix), registry: core.registry, queues, custody, metrics: core.metrics };
  core.metrics.watchQueues(queues.all());
  return {
    deps,
    routes: [...withdrawalRoutes({ ...deps, vaults: core.vaults, idempotency: new Idempotency(core.redis, core.prefix) }), callbackRoute(deps)],
    mount: (app) => mountDashboard(app, queues.all(), apiKeyRecords(config), config.dashboardReadOnly),
    startWorkers: () => startWorkers(deps, config.redisUrl),
    close: () => queues.close(),
  };
}
