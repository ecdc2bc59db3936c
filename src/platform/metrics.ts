import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one process. Each process (and each app a test builds) creates its
 * own `Metrics` with its own registry and passes it down; nothing is registered on
 * prom-client's global registry, so several apps in one process do not collide.
 */
export interface Metrics {
  registry: Registry;
  /** HTTP latency by method, route pattern (never the raw URL) and status. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Signing callbacks that passed verification, by outcome (queued, partial, duplicate). */
  callbacksAccepted: Counter<'outcome'>;
  /** Signing callbacks refused, by reason (VerificationError.reason, else the errCode). */
  callbacksRejected: Counter<'reason'>;
  /** Failed authentications (API keys, dashboard logins), by reason; `throttled` counts attempts refused by the throttle. */
  authFailures: Counter<'reason'>;
  /** Time a worker spent on a job, by queue and outcome (completed, failed). */
  jobDuration: Histogram<'queue' | 'outcome'>;
  /** Broadcast attempts by ledger and outcome (sent, already_known, retryable_error, rejected). */
  broadcasts: Counter<'ledger' | 'outcome'>;
  /** Reservation contention: UTXO claims lost to another withdrawal, sequence numbers refilled from the free list. */
  reservationEvents: Counter<'ledger' | 'kind'>;
  /** Broadcast withdrawals marked stuck, by ledger; resends of dropped transactions; replacements sent, by kind. */
  afterBroadcast: Counter<'ledger' | 'event'>;
  /** Deposit events by ledger and kind (detected, confirmed, reverted, reorganised_after_confirmation). */
  deposits: Counter<'ledger' | 'event'>;
  /** Blocks (ledgers, slots) the deposit scanner applied, by ledger. */
  depositBlocks: Counter<'ledger'>;
  /** How far the deposit scanner is behind the node's tip, in `blocks` and in `seconds` (of block time). */
  depositLag: Gauge<'ledger' | 'unit'>;
  /** Reports the job counts of these queues (by state) at every scrape. */
  watchQueues(queues: QueueLike[]): void;
  /** Express middleware observing `httpDuration`. */
  httpMiddleware(): RequestHandler;
}

/** What the queue-depth gauge needs of a BullMQ queue. */
export interface QueueLike {
  name: string;
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'];
const SCRAPE_TIMEOUT_MS = 2000;

export interface MetricsOptions {
  /** Default Node.js process metrics (CPU, memory, event loop lag, GC). One set per process: enable it in entry points only. */
  processMetrics?: boolean;
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const queues: QueueLike[] = [];
  const httpDuration = new Histogram({
    name: 'byow_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  new Gauge({
    name: 'byow_queue_jobs',
    help: 'Jobs per queue and state (queue depth: waiting + prioritized + delayed)',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      await Promise.all(
        queues.map(async (q) => {
          const counts = await Promise.race([
            q.getJobCounts(...QUEUE_STATES),
            new Promise<undefined>((r) => setTimeout(() => r(undefined), SCRAPE_TIMEOUT_MS).unref()),
          ]).catch(() => undefined);
          for (const [state, n] of Object.entries(counts ?? {})) this.set({ queue: q.name, state }, n);
        }),
      );
    },
  });
  return {
    registry,
    httpDuration,
    callbacksAccepted: new Counter({
      name: 'byow_callbacks_accepted_total',
      help: 'Signing callbacks accepted, by outcome',
      labelNames: ['outcome'] as const,
      registers,
    }),
    callbacksRejected: new Counter({
      name: 'byow_callbacks_rejected_total',
      help: 'Signing callbacks refused, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    authFailures: new Counter({
      name: 'byow_auth_failures_total',
      help: 'Failed authentications by reason (missing_key, unknown_key, no_admin_scope, throttled)',
      labelNames: ['reason'] as const,
      registers,
    }),
    jobDuration: new Histogram({
      name: 'byow_job_duration_seconds',
      help: 'Time a worker spent on a job, by queue and outcome',
      labelNames: ['queue', 'outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    broadcasts: new Counter({
      name: 'byow_broadcasts_total',
      help: 'Broadcast attempts by ledger and outcome',
      labelNames: ['ledger', 'outcome'] as const,
      registers,
    }),
    reservationEvents: new Counter({
      name: 'byow_reservation_conflicts_total',
      help: 'Reservation contention by ledger and kind (utxo_claim_conflict, sequence_refill)',
      labelNames: ['ledger', 'kind'] as const,
      registers,
    }),
    afterBroadcast: new Counter({
      name: 'byow_after_broadcast_total',
      help: 'Events after the broadcast by ledger: stuck, resent (dropped), reorganised, speed-up, cancel, conflict',
      labelNames: ['ledger', 'event'] as const,
      registers,
    }),
    deposits: new Counter({
      name: 'byow_deposits_total',
      help: 'Deposit events by ledger: detected, confirmed, reverted, reorganised_after_confirmation',
      labelNames: ['ledger', 'event'] as const,
      registers,
    }),
    depositBlocks: new Counter({
      name: 'byow_deposit_blocks_scanned_total',
      help: 'Blocks the deposit scanner applied, by ledger',
      labelNames: ['ledger'] as const,
      registers,
    }),
    depositLag: new Gauge({
      name: 'byow_deposit_scanner_lag',
      help: "How far the deposit scanner is behind the node's tip, by ledger, in blocks and in seconds",
      labelNames: ['ledger', 'unit'] as const,
      registers,
    }),
    watchQueues: (qs) => {
      queues.push(...qs);
    },
    httpMiddleware: () => (req, res, next) => {
      const end = httpDuration.startTimer();
      res.once('finish', () => {
        // The matched pattern (`/api/v1.0/vaults/:vaultId/balance`), never the raw URL.
        const pattern = res.locals.routePattern as string | undefined;
        const route = pattern ?? (req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : res.statusCode === 404 ? 'unmatched' : 'other');
        end({ method: req.method, route, status: String(res.statusCode) });
      });
      next();
    },
  };
}

/** Serves the registry in the Prometheus text format. */
export function metricsHandler(metrics: Metrics): RequestHandler {
  return async (_req, res) => {
    res.set('content-type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  };
}
