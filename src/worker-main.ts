/**
 * The worker process (`npm run worker`): assembles, broadcasts and tracks signed withdrawals.
 * Run as many as you like against one Redis. Finishes its current jobs on SIGTERM/SIGINT.
 */
import { claimProfileOrExit, loadConfigOrExit } from './config/config-or-exit.js';
import { createLogger } from './logger.js';
import { checkLedgerNetworks } from './ledger/boot-check.js';
import { createPipeline } from './pipeline/pipeline.js';
import { connectRedis } from './redis.js';
import { exitOnStartFailure, onShutdown } from './process-lifecycle.js';
import { createMetrics } from './metrics/metrics.js';
import { createCore } from './service.js';
import { startWorkerHealthServer } from './worker-health-server.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.sandboxProfile) {
    process.stderr.write('The sandbox runs its workers inside `npm start`; a separate worker needs LEDGERS, CUSTODY_URL and REDIS_URL.\n');
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, config.secrets);
  const core = createCore(config, logger, connectRedis(config.redisUrl, logger, 'byow-worker-store'), createMetrics({ processMetrics: true }));
  await claimProfileOrExit(core.redis, core.prefix, false, async () => core.redis.disconnect());
  await checkLedgerNetworks(core.registry, logger);
  const pipeline = createPipeline(core);
  const workers = await pipeline.startWorkers();
  const health = await startWorkerHealthServer(
    { redis: core.redis, workers, metrics: core.metrics, version: config.version, timeoutMs: config.healthTimeoutMs },
    config.workerPort,
    config.host,
  );
  const address = health.address();
  const port = typeof address === 'object' && address ? address.port : config.workerPort;
  logger.info({ ledgers: core.registry.ids(), port }, 'worker started; GET /status and /metrics on its port');
  // Closing the workers lets their current jobs finish first.
  onShutdown(logger, 'worker', async () => {
    health.close();
    health.closeAllConnections();
    await workers.close();
    await pipeline.close();
    core.redis.disconnect();
  });
}

main().catch(exitOnStartFailure);
