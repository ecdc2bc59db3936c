/**
 * The API process (`npm start`): wallet layer, vault registry, withdrawals, the signing
 * callback receiver and the job dashboard; in the sandbox also the local nodes, the custody
 * simulator and the queue workers.
 */
import { families } from '../adaptors/index.js';
import { claimProfileOrExit, loadConfigOrExit } from './config/config-or-exit.js';
import { createLogger } from './logger.js';
import { checkLedgerNetworks } from './ledger/boot-check.js';
import { createPipeline } from './pipeline/pipeline.js';
import type { Workers } from './pipeline/workers.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { exitOnStartFailure, onShutdown } from './process-lifecycle.js';
import { createMetrics } from './metrics/metrics.js';
import { createCore, listen } from './service.js';

async function main(): Promise<void> {
  let config = loadConfigOrExit();
  let sandbox: Sandbox | undefined;
  if (config.sandboxProfile) {
    // Loaded only here: the sandbox needs dev dependencies (anvil, bcoin, solc) a production image leaves out.
    const { startSandbox } = await import('./sandbox/sandbox.js');
    sandbox = await startSandbox(config, families, (m) => process.stderr.write(`${m}\n`));
    config = sandbox.config;
  }
  const logger = createLogger(config.logLevel, config.secrets);
  const core = createCore(config, logger, undefined, createMetrics({ processMetrics: true }));
  await claimProfileOrExit(core.redis, core.prefix, config.sandboxProfile, async () => {
    core.redis.disconnect();
    await sandbox?.stop();
  });
  await checkLedgerNetworks(core.registry, logger);
  const pipeline = createPipeline(core);
  const routes = [...pipeline.routes, ...(sandbox ? (await import('./sandbox/sandbox-routes.js')).sandboxRoutes(core, sandbox) : [])];
  const server = await listen(core, { routes, mount: pipeline.mount }, { custody: () => pipeline.deps.custody.health() });
  let workers: Workers | undefined;
  if (config.inProcessWorker ?? false) workers = await pipeline.startWorkers();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, ledgers: core.registry.ids(), sandbox: Boolean(sandbox), inProcessWorker: Boolean(workers) }, 'listening');
  if (sandbox) {
    process.stdout.write(
      `\n${[...sandbox.banner, `  API         http://127.0.0.1:${port}/api/v1.0  (OpenAPI /api/v1.0/openapi.json, jobs /admin/queues)`].join('\n')}\n\n`,
    );
  }

  onShutdown(logger, 'api', async () => {
    server.close();
    server.closeAllConnections();
    await workers?.close();
    await pipeline.close();
    core.redis.disconnect();
    await sandbox?.stop();
  });
}

main().catch(exitOnStartFailure);
