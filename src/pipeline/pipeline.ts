import type { Express } from 'express';
import { mountDashboard } from '../http/dashboard.js';
import type { DocumentedPath } from '../http/openapi.js';
import type { AnyRouteSpec } from '../http/route.js';
import { callbackRoute } from '../http/routes/callback-route.js';
import { replacementRoutes } from '../http/routes/replacement-routes.js';
import { withdrawalRoutes } from '../http/routes/withdrawal-routes.js';
import { adminWithdrawalRoutes } from '../http/routes/admin-withdrawal-routes.js';
import { webhookRoutes } from '../http/routes/webhook-routes.js';
import { createWebhooks, type Webhooks } from '../webhooks/webhooks.js';
import { apiKeyRecords, type Core } from '../service.js';
import { Idempotency } from './idempotency.js';
import { OperationStore } from './operation-store.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { SendOrderBook } from './send-order.js';
import { createQueues } from './queues.js';
import { startWorkers, type Workers } from './workers.js';

export interface Pipeline {
  deps: PipelineDeps;
  webhooks: Webhooks;
  routes: AnyRouteSpec[];
  /** Mounts the dashboard; returns its paths for the OpenAPI document. */
  mount(app: Express): DocumentedPath[];
  startWorkers(): Promise<Workers>;
  close(): Promise<void>;
}

/** The signing loop built from the core: custody connector, operation store, queues, routes. */
export function createPipeline(core: Core): Pipeline {
  const { config, logger } = core;
  const custody = core.custody;
  if (!custody) throw new Error('CUSTODY_URL is not configured');
  const queues = createQueues(core.redis, config);
  // Without a listener BullMQ prints every connection error raw on stderr. The shared client
  // (connectRedis) already logs each outage once, so these repeats only go to debug.
  for (const q of queues.all()) q.on('error', (err) => logger.debug({ err: err.message, queue: q.name }, 'queue connection error'));
  const store = new OperationStore(core.redis, core.prefix);
  const deps: PipelineDeps = { config, logger, store, registry: core.registry, queues, custody, metrics: core.metrics, sendOrder: new SendOrderBook(core.redis, core.prefix) };
  const webhooks = createWebhooks({ redis: core.redis, prefix: core.prefix, outboxKey: deps.store.outboxKey, config, logger });
  const allQueues = () => [...queues.all(), webhooks.queue];
  core.metrics.watchQueues(allQueues());
  return {
    deps,
    webhooks,
    routes: [
      ...withdrawalRoutes({ ...deps, vaults: core.vaults, idempotency: new Idempotency(core.redis, core.prefix, (id) => store.find(id), config.idempotencyClaimSeconds) }),
      ...replacementRoutes({ ...deps, vaults: core.vaults }),
      callbackRoute(deps),
      ...adminWithdrawalRoutes(deps),
      ...webhookRoutes(webhooks.service),
    ],
    mount: (app) => mountDashboard(app, { queues: allQueues(), records: apiKeyRecords(config), readOnly: config.dashboardReadOnly, redis: core.redis, prefix: core.prefix, logger }),
    startWorkers: async () => {
      const [pipelineWorkers, webhookWorkers] = await Promise.all([startWorkers(deps, config.redisUrl), webhooks.start()]);
      return { running: () => pipelineWorkers.running(), close: async () => void (await Promise.all([pipelineWorkers.close(), webhookWorkers.close()])) };
    },
    close: async () => void (await Promise.all([queues.close(), webhooks.close()])),
  };
}
