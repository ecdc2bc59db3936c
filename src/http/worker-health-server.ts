import type { Server } from 'node:http';
import { NotFoundError } from '../platform/errors.js';
import { probe } from './routes/service-routes.js';
import { redisHealth } from './redis-health.js';
import type { DependencyHealth } from './app-context.js';
import type { Redis } from 'ioredis';
import type { Metrics } from '../platform/metrics.js';
import type { Workers } from '../withdrawals/jobs/workers.js';
import { createLimitedServer, DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.js';

export interface WorkerHealthDeps {
  redis: Redis;
  prefix: string;
  metrics: Metrics;
  workers: Workers;
  version: string;
  /** Time the Redis check may take. */
  timeoutMs: number;
}

export interface WorkerStatus {
  version: string;
  healthy: boolean;
  redis: DependencyHealth;
  workers: DependencyHealth;
}

export async function workerStatus(deps: WorkerHealthDeps): Promise<WorkerStatus> {
  const redis = await probe(() => redisHealth(deps.redis, deps.prefix), deps.timeoutMs);
  const workers: DependencyHealth = deps.workers.running() ? { healthy: true } : { healthy: false, errorMessage: 'queue workers are not running' };
  return { version: deps.version, healthy: redis.healthy && workers.healthy, redis, workers };
}

/**
 * The worker process's own small HTTP surface, for the orchestrator and the scraper:
 * `GET /status` (200 when Redis answers and the queue workers run, else 503; the body says
 * which) and `GET /metrics` (Prometheus: job durations and broadcasts are counted here,
 * where the jobs run). Nothing else, and nothing that changes state.
 */
export function startWorkerHealthServer(deps: WorkerHealthDeps, port: number, host: string, limits: ServerLimits = DEFAULT_SERVER_LIMITS): Promise<Server> {
  const server = createLimitedServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => void res.writeHead(status, { 'content-type': type }).end(body);
    if (req.method !== 'GET' || (path !== '/status' && path !== '/metrics')) {
      const body = new NotFoundError(`No route ${req.method ?? ''} ${path}; the worker serves GET /status and GET /metrics`).toBody();
      return send(404, 'application/json', JSON.stringify(body));
    }
    const answer =
      path === '/status'
        ? workerStatus(deps).then((s) => send(s.healthy ? 200 : 503, 'application/json', JSON.stringify(s)))
        : deps.metrics.registry.metrics().then((text) => send(200, deps.metrics.registry.contentType, text));
    answer.catch((e: Error) => send(503, 'application/json', JSON.stringify({ healthy: false, errorMessage: e.message })));
  }, limits);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
