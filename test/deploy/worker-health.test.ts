import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { startWorkerHealthServer, workerStatus, type WorkerHealthDeps } from '../../src/http/worker-health-server.js';
import { httpCaller, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../pipeline/support.js';

/** The worker process's /status and /metrics, served by real queue workers on the run's real Redis. */
describe('worker health and metrics endpoint', () => {
  let svc: TestService;
  let deps: WorkerHealthDeps;
  let call: TestService['call'];
  let close: () => void;

  beforeAll(async () => {
    svc = await startTestService(
      { ethdev: { rpcUrl: 'http://127.0.0.1:9', confirmations: 1 } },
      { pipeline: true, workers: true, env: { RECONCILE_INTERVAL_SECONDS: '1' } },
    );
    deps = { redis: svc.core.redis, prefix: svc.core.prefix, workers: svc.workers!, metrics: svc.core.metrics, version: 'test', timeoutMs: 1000 };
    const server = await startWorkerHealthServer(deps, 0, '127.0.0.1');
    const address = server.address();
    call = httpCaller(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    close = () => {
      server.closeAllConnections();
      server.close();
    };
  });
  afterAll(async () => {
    close();
    await svc.stop();
  });

  it('is healthy while Redis answers and the workers run', async () => {
    const res = await call('GET', '/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'test', healthy: true, redis: { healthy: true }, workers: { healthy: true } });
  });

  it('serves the Prometheus metrics of the jobs this process ran', async () => {
    // The reconciliation job runs every second in this worker; its duration is counted here.
    const text = await until(
      'a completed reconciliation counted',
      async () => {
        const metrics = (await call('GET', '/metrics')).body as string;
        return /byow_job_duration_seconds_count\{queue="reconcile",outcome="completed"\} [1-9]/.test(metrics) && metrics;
      },
      30_000,
    );
    expect(text).toMatch(/byow_job_duration_seconds_count\{queue="reconcile",outcome="completed"\} [1-9]/);
    expect(text).toMatch(/byow_queue_jobs\{queue="broadcast",state="waiting"\} 0/);
  });

  it('answers other paths and methods 404 in the error shape', async () => {
    const res = await call('POST', '/status');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ errCode: 'ERR_NOT_FOUND', title: 'Not found' });
    expect((await call('GET', '/api/v1.0/status')).status).toBe(404);
  });

  it('is unhealthy (503, saying why) when Redis does not answer', async () => {
    const deadPort = await freePort();
    const dead = new Redis(`redis://127.0.0.1:${deadPort}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const status = await workerStatus({ ...deps, redis: dead });
    expect(status.healthy).toBe(false);
    expect(status.redis.healthy).toBe(false);
    expect(status.workers.healthy).toBe(true);
    dead.disconnect();
  });

  it('is unhealthy once its workers stopped', async () => {
    await svc.workers!.close();
    const res = await call('GET', '/status');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ healthy: false, redis: { healthy: true }, workers: { healthy: false, errorMessage: 'queue workers are not running' } });
  });
});
