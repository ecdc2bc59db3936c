import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isDepositEntry, parseDepositEntry } from '../deposits/deposit-events.js';
import { parseOutboxEntry } from '../withdrawals/store/outbox.js';
import type { WebhookService } from './webhook-service.js';

export interface OutboxDispatcher {
  /** Moves what the outbox holds now to delivery jobs; returns how many entries it handled. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH = 100;
const GATHER_MS = 20;

/**
 * Reads the outbox stream in order and turns each event into delivery jobs, then removes the
 * entry. An entry is removed only after its deliveries are recorded, so a dispatcher that
 * stops half-way hands the entry to the next one, which recognises what was already
 * dispatched. Several worker processes may run it at once: each goes through the stream in
 * order, and per withdrawal an event is recorded only after the ones before it.
 */
export function startOutboxDispatcher(opts: {
  redis: Redis;
  outboxKey: string;
  service: WebhookService;
  logger: Logger;
  idleWaitMs?: number;
}): OutboxDispatcher {
  const { redis, outboxKey, service, logger } = opts;
  // A blocking read needs a connection of its own.
  const blocking = redis.duplicate({ connectionName: 'byow-outbox', maxRetriesPerRequest: null });
  // The shared client already logs each Redis outage once; this connection's repeats go to debug.
  blocking.on('error', (err: Error) => logger.debug({ err: err.message }, 'outbox connection error'));
  let stopped = false;
  let failing = false;

  const drain = async (): Promise<number> => {
    const entries = await redis.xrange(outboxKey, '-', '+', 'COUNT', BATCH);
    if (entries.length === 0) return 0;
    const subscriptions = await service.deps.subscriptions.list();
    // Handled entries are removed together, after their deliveries are recorded: a dispatcher
    // stopped before that hands them to the next one, which recognises what was dispatched.
    const handled: string[] = [];
    try {
      for (const [id, fields] of entries) {
        let event;
        try {
          event = isDepositEntry(fields) ? parseDepositEntry(fields) : parseOutboxEntry(fields);
        } catch (e) {
          // Only the store's scripts write the outbox; an entry that does not parse would block every later one.
          logger.error({ entryId: id, err: (e as Error).message }, 'unreadable outbox entry skipped');
          handled.push(id);
          continue;
        }
        const count = subscriptions.length ? await service.dispatch(event, subscriptions) : 0;
        handled.push(id);
        logger.debug({ eventId: event.id, type: event.type, deliveries: count }, 'outbox event dispatched');
      }
    } finally {
      if (handled.length) await redis.xdel(outboxKey, ...handled);
    }
    return entries.length;
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        const handled = await drain();
        if (handled === 0 && !stopped) await blocking.xread('BLOCK', opts.idleWaitMs ?? 1000, 'STREAMS', outboxKey, '0-0');
        // A part batch: let a few more events come before the next read, so a busy pipeline's
        // events are read (and removed) a hundred at a time, not one or two per round trip.
        else if (handled < BATCH && !stopped) await new Promise((r) => setTimeout(r, GATHER_MS));
        failing = false;
      } catch (e) {
        if (stopped) break;
        // Once per run of failures: a Redis outage would otherwise log every second.
        (failing ? logger.debug : logger.warn).call(logger, { err: (e as Error).message }, 'outbox dispatch failed; trying again');
        failing = true;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();

  return {
    drain,
    stop: async () => {
      stopped = true;
      blocking.disconnect();
      await loop;
    },
  };
}
