/**
 * The API process: wallet layer, vault registry and (in the sandbox) the local nodes.
 * `npm start`.
 */
import { families } from '../adaptors/index.js';
import { ConfigError, loadConfig, type Config } from './config/load-config.js';
import { createLogger } from './logger.js';
import { startSandbox, type Sandbox } from './sandbox/sandbox.js';
import { createCore, listen } from './service.js';
import { VERSION } from './version.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, families, VERSION);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  let sandbox: Sandbox | undefined;
  if (config.sandboxProfile) {
    sandbox = await startSandbox(config, families, (m) => process.stderr.write(`${m}\n`));
    config = sandbox.config;
  }
  const logger = createLogger(config.logLevel, config.secrets);
  const core = createCore(config, logger);
  const server = await listen(core);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, ledgers: core.registry.ids(), sandbox: Boolean(sandbox) }, 'wallet layer listening');
  if (sandbox) {
    process.stdout.write(`\n${[...sandbox.banner, `  API     http://127.0.0.1:${port}/api/v1.0 (OpenAPI: /api/v1.0/openapi.json)`].join('\n')}\n\n`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close();
    server.closeAllConnections();
    core.redis.disconnect();
    await sandbox?.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
