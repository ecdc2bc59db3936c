import type { Server } from 'node:http';
import type { JsonRpcProvider } from 'ethers';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startInMemoryCustodyEmulator, type RunningInMemoryCustodyEmulator } from '../../src/dev/custody-emulator/index.js';
import type { Workers } from '../../src/withdrawals/jobs/workers.js';
import { freePort } from '../../src/dev/free-port.js';
import { ensureRedis, type LocalRedis } from '../../src/dev/local-redis.js';
import { createCore } from '../../src/app/core.js';
import { createPipeline, listen, type Pipeline } from '../../src/app/processes.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { ADMIN_KEY, httpCaller, TEST_CALLBACK_SECRET, WITHDRAW_KEY, type TestService } from '../helpers/service.js';
import { countBroadcasts, postCallback, provider, RECIPIENT, signedCallbackBody, switchableProxy, until, withdraw, type SwitchableProxy } from './support.js';

/**
 * The service on its own throwaway Redis, reached through a TCP proxy: Redis unreachable
 * (proxy off, data intact) and Redis killed. The callback answers 503 with Retry-After in the
 * AppError shape (the custody resends), never 200 before the broadcast job is durably
 * enqueued; the process keeps running; `/status` reports Redis unhealthy.
 */
describe('Redis unavailable at the callback', () => {
  let chain: TestChain;
  let p: JsonRpcProvider;
  let redisServer: LocalRedis;
  let redis: SwitchableProxy;
  let custody: RunningInMemoryCustodyEmulator;
  let svc: TestService;
  let server: Server;
  let pipeline: Pipeline;
  let workers: Workers;
  const errors: unknown[] = [];
  const onUncaught = (e: unknown) => errors.push(e);
  // Errors go through the service's logger; nothing may be dumped raw on stderr.
  let stderr: MockInstance<typeof console.error>;

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    stderr = vi.spyOn(console, 'error');
    chain = await startTestChain();
    p = provider(chain.anvil.url);
    // Nothing listens on this port, so ensureRedis starts a redis-server of its own.
    redisServer = await ensureRedis(`redis://127.0.0.1:${await freePort()}`);
    redis = await switchableProxy({ host: '127.0.0.1', port: Number(new URL(redisServer.url).port) }, 'redis');
    const port = await freePort();
    custody = await startInMemoryCustodyEmulator({
      callback: { secret: TEST_CALLBACK_SECRET, baseUrl: `http://127.0.0.1:${port}`, attempts: 1, baseDelayMs: 50 },
      quorum: { approvers: 1, required: 1, approvalDelayMs: 5 },
    });
    const config = loadConfig(
      {
        HOST: '127.0.0.1',
        REDIS_URL: redis.url,
        REDIS_PREFIX: 'redis-down',
        LEDGERS: JSON.stringify({ ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } }),
        API_KEYS: JSON.stringify([
          { name: 'admin', key: ADMIN_KEY, scopes: ['admin', 'read', 'withdraw'] },
          { name: 'withdrawer', key: WITHDRAW_KEY, scopes: ['withdraw', 'read'] },
        ]),
        CUSTODY_URL: custody.url,
        CALLBACK_SECRET: TEST_CALLBACK_SECRET,
        CONFIRM_POLL_MS: '100',
        JOB_LOCK_MS: '2000',
        HEALTH_TIMEOUT_MS: '1000',
        // /status says what Redis is now, not what it was a moment ago.
        HEALTH_CACHE_MS: '0',
      },
      families,
      'test',
    );
    // The production Redis connection (connectRedis: fail fast, reconnect in the background).
    const core = createCore(config, pino({ level: 'silent' }));
    pipeline = createPipeline(core);
    server = await listen(core, { routes: pipeline.routes, mount: pipeline.mount }, { custody: () => pipeline.deps.custody.health() }, port);
    workers = await pipeline.startWorkers();
    const url = `http://127.0.0.1:${port}`;
    svc = {
      url,
      core,
      pipeline,
      call: httpCaller(url),
      stop: async () => undefined,
    };
  });
  afterAll(async () => {
    const bounded = (work: Promise<unknown>) => Promise.race([work.catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
    await bounded(workers?.close() ?? Promise.resolve());
    await bounded(pipeline?.close() ?? Promise.resolve());
    server?.closeAllConnections();
    await bounded(new Promise<void>((r) => server?.close(() => r())));
    svc?.core.redis.disconnect();
    await custody?.stop();
    await redis?.close();
    await redisServer?.stop();
    p?.destroy();
    await chain?.stop();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    stderr?.mockRestore();
  });

  const redisHealth = async () => {
    const res = await svc.call('GET', '/api/v1.0/status');
    expect(res.status).toBe(200);
    return res.body.redis.healthy as boolean;
  };

  /** A registered, funded vault and one withdrawal whose callback the custody holds back. */
  async function executingWithdrawal() {
    const v = custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    const reg = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: v.vaultId, ledgerId: 'ethdev', publicKey: v.publicKey } });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    await chain.funder.sendEth(reg.body.address, 10n ** 17n);
    custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const res = await withdraw(svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'redis down' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const operationID = res.body.operationID as string;
    await until('the custody to sign', () => custody.control.operation(operationID)?.deliveries.length === 1);
    return { vaultId: v.vaultId, address: reg.body.address as string, operationID };
  }

  const expect503 = (res: { status: number; body: any; headers: Headers }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.body).toMatchObject({ errCode: 'ERR_UNAVAILABLE', title: expect.any(String), details: expect.any(String), type: expect.any(String) });
  };

  it('Redis unreachable: 503 with Retry-After, nothing done; the resent callback then completes it once', async () => {
    const counter = countBroadcasts(svc, 'ethdev');
    const w = await executingWithdrawal();
    const body = signedCallbackBody({ custody }, w.operationID);
    expect(await redisHealth()).toBe(true);

    redis.off();
    try {
      for (let i = 0; i < 2; i++) expect503(await postCallback(svc, 'ethdev', body));
      expect(await redisHealth()).toBe(false);
      // Other routes that need Redis answer 503 too; the process is alive.
      expect503(await svc.call('GET', `/api/v1.0/vaults/${w.vaultId}/withdrawals/${w.operationID}`, { key: WITHDRAW_KEY }));
    } finally {
      redis.on();
    }
    await until('Redis to be healthy again', async () => (await redisHealth()) || undefined);
    // Nothing was half-done while Redis was away.
    expect((await pipeline.deps.store.signatures((await pipeline.deps.store.resolve(w.operationID))!.id)).size).toBe(0);
    expect(await pipeline.deps.queues.broadcast.getJobCounts()).toMatchObject({ waiting: 0, active: 0, completed: 0, delayed: 0 });
    expect(counter.calls).toBe(0);

    // The custody resends (the delivery faults are read again: this time it is delivered).
    custody.control.setFaults({}, (await pipeline.deps.store.resolve(w.operationID))!.vaultId);
    const resend = await fetch(`${custody.url}/operations/sign/${w.operationID}/resend`, { method: 'POST' });
    expect(resend.status).toBe(200);
    const d = await until('the resend', () => {
      const op = custody.control.operation(w.operationID);
      return op && op.deliveries.length === 2 ? op.deliveries : undefined;
    });
    expect(d[1]).toEqual({ delivered: 1, failed: 0, dropped: false });
    const done = await until('CONFIRMED', async () => {
      const r = await svc.call('GET', `/api/v1.0/vaults/${w.vaultId}/withdrawals/${w.operationID}`, { key: WITHDRAW_KEY });
      return r.body.status === 'CONFIRMED' || r.body.status === 'FAILED' ? r.body : undefined;
    });
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect(counter.calls).toBe(1);
    expect(await p.getTransactionCount(w.address, 'latest')).toBe(1);
    counter.restore();
  });

  it('Redis killed: the callback answers 503 with Retry-After, /status reports it, the process does not crash', async () => {
    const w = await executingWithdrawal();
    const body = signedCallbackBody({ custody }, w.operationID);
    await redisServer.stop();
    await until('redis-server to be gone', async () => {
      const r = await fetch(`${svc.url}/api/v1.0/status`).then((x) => x.json() as Promise<{ redis: { healthy: boolean } }>);
      return r.redis.healthy ? undefined : true;
    });
    expect503(await postCallback(svc, 'ethdev', body));
    expect(await redisHealth()).toBe(false);
    expect503(await postCallback(svc, 'ethdev', body));
    expect(errors).toEqual([]);
    expect(stderr.mock.calls).toEqual([]);
  });
});
