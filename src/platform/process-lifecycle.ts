import type { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits; a failing stop still exits, non-zero.
 * Entry points share this so every process shuts down the same way.
 */
export function onShutdown(logger: Logger, what: string, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${what} shutting down`);
    try {
      await stop();
      process.exit(0);
    } catch (e) {
      logger.error({ err: e }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** The last word of an entry point whose start failed. */
export function exitOnStartFailure(e: unknown): never {
  process.stderr.write(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
}
