/**
 * The composition root (src/app/): the one place that builds the processes (the API and the
 * sandbox around it here, the worker in worker-process.ts, the pipeline both share in
 * pipeline.ts) from configuration and wires the layers together. Below it the layers only
 * import downwards: `http/` (routes, dashboard) uses `pipeline/` (the domain and the jobs),
 * which uses `ledger/`, `vaults/` and `custody/`.
 */
import type { Server } from 'node:http';
import { secp256k1 } from '../ledger/secp256k1.js';
import type { Express } from 'express';
import { families } from '../../adaptors/index.js';
import { claimProfileOrExit, exitOnConfigError, loadConfigOrExit } from './config-or-exit.js';
import { createPipelineCore, pipelineOrExit, type PipelineCore } from './pipeline.js';
import { createCore, type Core } from './core.js';
import type { AppContext } from '../http/app-context.js';
import { authThrottleOf, createApp, type AppExtensions } from '../http/app.js';
import { answerClientErrorsAsJson } from '../http/client-error.js';
import { derivePoolFor } from '../vaults/derivation/derive-pool-for.js';
import { deriveThreadEntry } from './derive-entry.js';
import { prepareGracefulClose } from '../http/graceful-close.js';
import { mountDashboard } from '../http/dashboard/dashboard.js';
import type { DocumentedPath } from '../http/openapi.js';
import type { AnyRouteSpec } from '../http/route.js';
import { adminWithdrawalRoutes } from '../http/routes/admin-withdrawal-routes.js';
import { depositRoutes } from '../http/routes/deposit-routes.js';
import { depositBackfillRoutes } from '../http/routes/deposit-backfill-routes.js';
import { callbackRoute } from '../http/routes/callback-route.js';
import { replacementRoutes } from '../http/routes/replacement-routes.js';
import { webhookRoutes } from '../http/routes/webhook-routes.js';
import { withdrawalRoutes } from '../http/routes/withdrawal-routes.js';
import { createLimitedServer, serverLimitsOf } from '../http/server-limits.js';
import { checkLedgerNetworks } from '../ledger/boot-check.js';
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { Idempotency } from '../withdrawals/store/idempotency.js';
import type { Workers } from '../withdrawals/jobs/workers.js';
import { onShutdown } from '../platform/process-lifecycle.js';
import { startIdleMemoryRelease } from '../platform/idle-memory.js';
import type { Sandbox } from '../dev/sandbox/sandbox.js';
import { apiKeyRecords, isLimited } from '../security/api-keys.js';
import { API_BASE } from '../platform/api-base.js';

/**
 * How long requests in flight at SIGTERM/SIGINT get to be answered before their connections
 * are cut: a withdrawal request that reserved a nonce or coins then still answers, instead of
 * leaving its client unsure whether it exists. Below Kubernetes' default 30 s termination grace
 * period, so the workers, queues and Redis still close before the SIGKILL.
 */
const API_SHUTDOWN_GRACE_MS = 10_000;

/** The pipeline both processes share (pipeline.ts), with what the API adds. */
export interface Pipeline extends PipelineCore {
  routes: AnyRouteSpec[];
  /** Mounts the dashboard; returns its paths for the OpenAPI document. */
  mount(app: Express): DocumentedPath[];
}

/** The signing loop built from the core (pipeline.ts) with what the API adds: its routes and the job dashboard. */
export function createPipeline(core: Core): Pipeline {
  const base = createPipelineCore(core);
  const { deps, webhooks, deposits, backfills } = base;
  return {
    ...base,
    routes: [
      ...withdrawalRoutes({
        ...deps,
        vaults: core.vaults,
        idempotency: new Idempotency(core.redis, core.prefix, (id) => deps.store.find(id), core.config.idempotencyClaimSeconds),
      }),
      ...replacementRoutes({ ...deps, vaults: core.vaults }),
      callbackRoute(deps),
      ...adminWithdrawalRoutes(deps),
      ...webhookRoutes(webhooks.service),
      ...depositRoutes({ deposits: deposits.store, registry: core.registry, vaults: core.vaults }),
      ...depositBackfillRoutes(backfills),
    ],
    mount: (app) =>
      mountDashboard(app, {
        queues: base.allQueues(),
        records: apiKeyRecords(core.config).filter((r) => !isLimited(r)),
        readOnly: core.config.dashboardReadOnly,
        redis: core.redis,
        prefix: core.prefix,
        logger: core.logger,
        throttle: authThrottleOf(core),
      }),
  };
}

export function appContext(core: Core, healthChecks: AppContext['healthChecks'] = {}): AppContext {
  return { ...core, apiKeys: apiKeyRecords(core.config), healthChecks };
}

/**
 * The HTTP API of the core (the wallet layer, vaults, `/status`) plus `ext`, listening on `port`.
 * Its address-derivation threads live as long as the server: closing the server stops them.
 */
export async function listen(core: Core, ext: AppExtensions = {}, healthChecks: AppContext['healthChecks'] = {}, port = core.config.port): Promise<Server> {
  const addressDeriver = derivePoolFor(core.config, core.logger, deriveThreadEntry());
  const server = createLimitedServer(createApp({ ...appContext(core, healthChecks), addressDeriver }, ext), serverLimitsOf(core.config));
  server.once('close', () => void addressDeriver.close());
  answerClientErrorsAsJson(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, core.config.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * The API process: wallet layer, vault registry, withdrawals, the signing callback receiver
 * and the job dashboard; in the sandbox also the local nodes, the custody emulator and the
 * queue workers.
 */
export async function startApiProcess(): Promise<void> {
  let config = loadConfigOrExit();
  startIdleMemoryRelease();
  let sandbox: Sandbox | undefined;
  if (config.sandboxProfile) {
    // Loaded only here: the sandbox needs dev dependencies (anvil, bcoin, solc) a production image leaves out.
    const { startSandbox } = await import('../dev/sandbox/sandbox.js');
    // It claims its key prefix first: one holding production data is refused before anything is written.
    sandbox = await startSandbox(config, families, (m) => process.stderr.write(`${m}\n`)).catch(exitOnConfigError);
    config = sandbox.config;
  }
  // The sandbox may write pretty lines (pino-pretty, a development dependency); production writes JSON.
  const logger = createLogger(config.logLevel, config.secrets, sandbox?.logDestination);
  const core = createCore(config, logger, undefined, createMetrics({ processMetrics: true }));
  await claimProfileOrExit(core.redis, core.prefix, config.sandboxProfile, async () => {
    core.redis.disconnect();
    await sandbox?.stop();
  });
  await checkLedgerNetworks(core.registry, logger);
  const pipeline = await pipelineOrExit(core, createPipeline, () => sandbox?.stop());
  const routes = [...pipeline.routes, ...(sandbox ? (await import('../dev/sandbox/sandbox-routes.js')).sandboxRoutes(core, sandbox) : [])];
  const server = await listen(core, { routes, mount: pipeline.mount }, { custody: () => pipeline.deps.custody.health(), ...pipeline.deposits.healthChecks() });
  // Before anything else is awaited: every request from the first on is tracked.
  const closeServer = prepareGracefulClose(server);
  let workers: Workers | undefined;
  if (config.inProcessWorker ?? false) workers = await pipeline.startWorkers();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, ledgers: core.registry.ids(), sandbox: Boolean(sandbox), inProcessWorker: Boolean(workers), secp256k1: secp256k1.name }, 'listening');
  // Last, after every start-up log line, so that it is what the user sees.
  sandbox?.printBanner([`  API         http://127.0.0.1:${port}${API_BASE}  (OpenAPI ${API_BASE}/openapi.json, jobs /admin/queues)`]);

  // Requests in flight use Redis, the queues and the custody client: they are answered (or cut
  // at the grace period) before any of those closes.
  onShutdown(logger, 'api', async () => {
    const { cut } = await closeServer(API_SHUTDOWN_GRACE_MS);
    if (cut) logger.warn({ cut, graceMs: API_SHUTDOWN_GRACE_MS }, 'requests still unanswered at the end of the shutdown grace period were cut');
    await workers?.close();
    await pipeline.close();
    core.redis.disconnect();
    await sandbox?.stop();
  });
}
