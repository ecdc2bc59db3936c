import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { startPersistentRedis } from '../../src/dev/local-redis.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { spawnHangingWorker } from './spawn-worker.js';
import { provider, RECIPIENT, txsFrom, withdraw } from './support.js';

async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
}

/**
 * A real worker process (`src/worker-main.ts`) loses Redis in the middle of a broadcast: the
 * transaction has reached the node, and Redis is SIGKILLed before the worker writes down what
 * it did (the account's send order, BROADCAST, the confirmation job). Every command of that
 * bookkeeping fails while Redis is away; the worker must not die of it, and once Redis is
 * back it finishes the withdrawal: CONFIRMED, with the one transaction it sent.
 */
describe('Redis killed and restarted under a worker process', () => {
  let chain: TestChain;
  let p: JsonRpcProvider;
  let ledgers: Record<string, unknown>;
  let dir: string;
  let port: number;
  let redis: ChildProcess;
  let loop: Loop;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    chain = await startTestChain();
    p = provider(chain.anvil.url);
    ledgers = { ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } };
    dir = mkdtempSync(path.join(tmpdir(), 'worker-redis-restart-'));
    port = await freePort();
    redis = await startPersistentRedis(port, dir, 'always');
    // The API in this process runs no workers: the only worker is the process the test starts.
    loop = await startLoop(ledgers, { workers: false, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    if (worker) await kill(worker);
    // A test that failed with Redis down leaves a service whose close waits for Redis: bounded.
    await Promise.race([loop?.stop().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
    if (redis) await kill(redis);
    p?.destroy();
    await chain?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the worker lives through the outage and completes the withdrawal once Redis is back, one transaction', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    const w = await spawnHangingWorker(loop, ledgers, ['wait']);
    worker = w.proc;

    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'redis killed mid-broadcast' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const operationID = res.body.operationID as string;
    // The transaction is on chain; the worker has not heard the node's answer yet.
    expect(await w.hangs(1)).toEqual(['waits']);
    expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);

    await kill(redis);
    await w.says('redis connection error');
    // The node answers: the worker goes on to its bookkeeping, with Redis gone.
    w.proc.kill('SIGUSR2');
    await w.says('bookkeeping after a send failed');

    redis = await startPersistentRedis(port, dir, 'always');
    await w.says('redis connection restored');
    const done = await loop.waitFor(v.vaultId, operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 40_000);
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);
    expect(await txsFrom(p, v.address)).toEqual(done.txids);
    expect(w.proc.exitCode).toBeNull();
    expect(w.proc.signalCode).toBeNull();
  }, 120_000);
});
