/**
 * The worker process (`npm run worker`): assembles, broadcasts and tracks signed withdrawals.
 * Run as many as you like against one Redis. Finishes its current jobs on SIGTERM/SIGINT.
 */
import { loadConfigOrExit } from './config/config-or-exit.js';
import { createLogger } from './logger.js';
import { createPipeline } from './pipeline/pipeline.js';
import { connectRedis } from './redis.js';
import { createCore } from './service.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.sandboxProfile) {
    process.stderr.write('The sandbox runs its workers inside `npm start`; a separate worker needs LEDGERS, CUSTODY_URL and REDIS_URL.\n');
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, config.secrets);
  const core = createCore(config, logger, connectRedis(config.redisUrl, logger, 'byow-worker-store'));
  const pipeline = createPipeline(core);
  const workers = await pipeline.startWorkers();
  logger.info({ ledgers: core.registry.ids() }, 'worker started');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down: finishing current jobs');
    await workers.close();
    await pipeline.close();
    core.redis.disconnect();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
