/**
 * The worker process (`npm run worker`): assembles, broadcasts and tracks signed withdrawals.
 * Run as many as you like against one Redis. Finishes its current jobs on SIGTERM/SIGINT.
 */
import { loadConfigOrExit } from './config/config-or-exit.js';
import { createLogger } from './logger.js';
import { checkLedgerNetworks } from './ledger/boot-check.js';
import { createPipeline } from './pipeline/pipeline.js';
import { connectRedis } from './redis.js';
import { exitOnStartFailure, onShutdown } from './process-lifecycle.js';
import { createServer } from 'node:http';
import { createMetrics } from './metrics/metrics.js';
import { createCore } from './service.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.sandboxProfile) {
    process.stderr.write('The sandbox runs its workers inside `npm start`; a separate worker needs LEDGERS, CUSTODY_URL and REDIS_URL.\n');
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, config.secrets);
  const core = createCore(config, logger, connectRedis(config.redisUrl, logger, 'byow-worker-store'), createMetrics({ processMetrics: true }));
  // Job durations and broadcasts are counted where the jobs run: here. Scraped like the API's /metrics.
  const metricsServer = config.metricsPort
    ? createServer((req, res) => {
        if (req.method !== 'GET' || req.url !== '/metrics') return void res.writeHead(404).end();
        void core.metrics.registry.metrics().then((text) => res.writeHead(200, { 'content-type': core.metrics.registry.contentType }).end(text));
      }).listen(config.metricsPort, config.host)
    : undefined;
  await checkLedgerNetworks(core.registry, logger);
  const pipeline = createPipeline(core);
  const workers = await pipeline.startWorkers();
  logger.info({ ledgers: core.registry.ids() }, 'worker started');
  // Closing the workers lets their current jobs finish first.
  onShutdown(logger, 'worker', async () => {
    metricsServer?.close();
    await workers.close();
    await pipeline.close();
    core.redis.disconnect();
  });
}

main().catch(exitOnStartFailure);
