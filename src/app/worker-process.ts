/**
 * The worker process, built apart from the API's (processes.ts) so that it loads none of what
 * only the API serves: its routes, the job dashboard, the derivation threads.
 */
import { secp256k1 } from '../ledger/secp256k1.js';
import { claimProfileOrExit, loadConfigOrExit } from './config-or-exit.js';
import { createCore } from './core.js';
import { createPipelineCore, pipelineOrExit } from './pipeline.js';
import { startWorkerHealthServer } from '../http/worker-health-server.js';
import { serverLimitsOf } from '../http/server-limits.js';
import { checkLedgerNetworks } from '../ledger/boot-check.js';
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { onShutdown } from '../platform/process-lifecycle.js';
import { startIdleMemoryRelease } from '../platform/idle-memory.js';
import { connectRedis } from '../platform/redis.js';

/**
 * A worker process: assembles, broadcasts and tracks signed withdrawals. Run as many as you
 * like against one Redis. Finishes its current jobs on SIGTERM/SIGINT.
 */
export async function startWorkerProcess(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.sandboxProfile) {
    process.stderr.write('The sandbox runs its workers inside `npm start`; a separate worker needs LEDGERS, CUSTODY_URL and REDIS_URL.\n');
    process.exit(1);
  }
  startIdleMemoryRelease();
  const logger = createLogger(config.logLevel, config.secrets);
  const core = createCore(config, logger, connectRedis(config.redisUrl, logger, 'byow-worker-store'), createMetrics({ processMetrics: true }));
  await claimProfileOrExit(core.redis, core.prefix, false, async () => core.redis.disconnect());
  await checkLedgerNetworks(core.registry, logger);
  const pipeline = await pipelineOrExit(core, createPipelineCore);
  const workers = await pipeline.startWorkers();
  const health = await startWorkerHealthServer(
    { redis: core.redis, prefix: core.prefix, workers, metrics: core.metrics, version: config.version, timeoutMs: config.healthTimeoutMs },
    config.workerPort,
    config.host,
    serverLimitsOf(config),
  );
  const address = health.address();
  const port = typeof address === 'object' && address ? address.port : config.workerPort;
  logger.info(
    { ledgers: core.registry.ids(), depositLedgers: pipeline.deposits.ledgers, port, secp256k1: secp256k1.name },
    'worker started; GET /status and /metrics on its port',
  );
  // Closing the workers lets their current jobs finish first.
  onShutdown(logger, 'worker', async () => {
    health.close();
    health.closeAllConnections();
    await workers.close();
    await pipeline.close();
    core.redis.disconnect();
  });
}
