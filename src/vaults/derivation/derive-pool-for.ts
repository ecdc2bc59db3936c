import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../config/load-config.js';
import { DerivePool, type DerivePoolOptions } from './derive-pool.js';

/** Threads by default: one core is left to the event loop. */
export function defaultDeriveThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** The pool of the API process, for the configured ledgers (`more`: tests' observers and sizes). */
export function derivePoolFor(
  config: Pick<Config, 'deriveThreads' | 'ledgerConfigs'>,
  logger: Logger,
  entry: URL,
  more: Partial<DerivePoolOptions> = {},
): DerivePool {
  return new DerivePool({
    entry,
    threads: config.deriveThreads ?? defaultDeriveThreads(),
    ledgers: config.ledgerConfigs.map((l) => ({ ledgerId: l.ledgerId, family: l.family.family, options: l.options })),
    logger,
    ...more,
  });
}
