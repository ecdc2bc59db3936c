import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { ConfigError } from '../../src/platform/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startWorkerHealthServer } from '../../src/http/worker-health-server.js';
import { clusterPrefixProblem } from '../../src/platform/redis.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { startRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster.js';
import { ADMIN_KEY, httpCaller } from '../helpers/service.js';
import { countBroadcasts, postCallback, provider, RECIPIENT, signedCallbackBody, until, withdraw } from '../pipeline/support.js';
import { fakeOperation, startReceiver } from '../webhooks/support.js';

const run = promisify(execFile);

/** The port of the master that serves `key`'s slot. */
async function masterPortOf(redis: Redis, key: string): Promise<number> {
  const slot = Number(await redis.cluster('KEYSLOT', key));
  const range = (await redis.cluster('SLOTS')).find(([from, to]) => from <= slot && slot <= to);
  if (!range?.[2]) throw new Error(`no master serves slot ${slot}`);
  return range[2][1];
}

/**
 * The whole signing loop on a real three-master Redis Cluster with a hash-tagged prefix: every
 * Lua script and multi-key command of the store, the reservations, the idempotency claims and
 * BullMQ must hold there as on one server.
 */
describe('on a Redis Cluster (three masters, hash-tagged prefix)', () => {
  let cluster: LocalRedisCluster;
  let chain: TestChain;
  let loop: Loop;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    chain = await startTestChain();
    loop = await startLoop(
      { ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } },
      {
        env: {
          REDIS_URL: cluster.url,
          REDIS_PREFIX: `{t${randomUUID().slice(0, 8)}}`,
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_BACKOFF_MS: '50',
          WEBHOOK_BACKOFF_MAX_MS: '200',
          HEALTH_TIMEOUT_MS: '500',
        },
      },
    );
  });
  afterAll(async () => {
    await loop?.stop();
    await chain?.stop();
    await cluster?.stop();
  });

  it('refuses a prefix without a hash tag, saying why', () => {
    expect(() => loadConfig({ REDIS_URL: cluster.url, REDIS_PREFIX: 'byow' }, families, 'v')).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_URL: cluster.url, REDIS_PREFIX: 'byow' }, families, 'v')).toThrow(/hash tag such as \{byow\}/);
  });

  it('12 concurrent withdrawals from one vault: consecutive nonces, all CONFIRMED; an Idempotency-Key retry and duplicate callbacks add nothing', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const counter = countBroadcasts(loop.svc, 'ethdev');
    try {
      const res = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
            key: 'test-withdraw-key-0123456789abcdef0',
            body: { recipientAddress: RECIPIENT, amount: '0.001', description: `cluster ${i}` },
            headers: { 'idempotency-key': `cluster-${i}` },
          }),
        ),
      );
      expect(res.map((r) => r.status)).toEqual(Array(12).fill(200));
      const again = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
        key: 'test-withdraw-key-0123456789abcdef0',
        body: { recipientAddress: RECIPIENT, amount: '0.001', description: 'cluster 0' },
        headers: { 'idempotency-key': 'cluster-0' },
      });
      expect(again.body.operationID).toBe(res[0]!.body.operationID);
      const done = await Promise.all(
        res.map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 60_000)),
      );
      expect(done.map((d) => d.status)).toEqual(Array(12).fill('CONFIRMED'));
      // The funding is a deposit: the scanner's step (cursor, deposit, outbox in one script) runs on the cluster.
      const deposit = await until(
        'the funding as a CONFIRMED deposit',
        async () => (await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/deposits?state=CONFIRMED`, { key: ADMIN_KEY })).body.items?.[0],
        30_000,
      );
      expect(deposit).toMatchObject({ amount: '1', asset: 'ETH', vaultId: v.vaultId });
      const p = provider(chain.anvil.url);
      try {
        expect(await p.getTransactionCount(v.address, 'latest')).toBe(12);
      } finally {
        p.destroy();
      }
      // A late duplicate of a delivered callback is answered, and nothing more is sent.
      const late = await postCallback(loop.svc, 'ethdev', signedCallbackBody(loop, res[3]!.body.operationID as string));
      expect([late.status, late.body.outcome]).toEqual([200, 'duplicate']);
      expect(counter.calls).toBe(12);
    } finally {
      counter.restore();
    }
  });

  it('a held-back callback posted five times at once: one queued, one transaction, CONFIRMED', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const r = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.001', description: 'held' });
    expect(r.status).toBe(200);
    await until('the quorum to sign', () => loop.custody.control.operation(r.body.operationID)?.status === 'COMPLETED');
    const answers = await Promise.all(Array.from({ length: 5 }, () => postCallback(loop.svc, 'ethdev', signedCallbackBody(loop, r.body.operationID))));
    expect(answers.filter((a) => a.body.outcome === 'queued')).toHaveLength(1);
    const done = await loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED', 60_000);
    expect(done.txids).toHaveLength(1);
  });

  it("the prefix check agrees with the slots Redis gives a prefix's keys", async () => {
    const redis = loop.svc.core.redis;
    for (const prefix of ['{byow}', 'a{byow}b', '}{byow}', '{{byow}}', 'byow', '{}{byow}', '{}', 'byow}']) {
      const slots = new Set(await Promise.all([`${prefix}:op:1`, `${prefix}:outbox`, `${prefix}:vault-ops:v`].map((k) => redis.cluster('KEYSLOT', k))));
      expect({ prefix, accepted: clusterPrefixProblem(cluster.url, prefix) === undefined }).toEqual({ prefix, accepted: slots.size === 1 });
    }
  });

  it('delivers webhook events to a subscriber', async () => {
    const receiver = await startReceiver();
    try {
      const created = await loop.svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url: receiver.url, events: ['*'] } });
      expect(created.status).toBe(201);
      await loop.svc.pipeline!.deps.store.create(fakeOperation());
      const statuses = await until('the delivery to be made', async () => {
        const res = await loop.svc.call('GET', `/api/v1.0/admin/webhooks/${created.body.id}/deliveries`, { key: ADMIN_KEY });
        const all = (res.body.items as { status: string }[]).map((d) => d.status);
        return all.length > 0 && all.every((st) => st === 'delivered') && all;
      });
      expect(statuses).toEqual(['delivered']);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  // Last: it stops the master of the service's slot from answering for a while.
  it("both /status answer Redis unhealthy while the master of the prefix's slot does not answer, healthy again after", async () => {
    const { svc } = loop;
    const health = await startWorkerHealthServer(
      { redis: svc.core.redis, prefix: svc.core.prefix, metrics: svc.core.metrics, workers: svc.workers!, version: 't', timeoutMs: 500 },
      0,
      '127.0.0.1',
    );
    const address = health.address();
    const worker = httpCaller(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    const redisHealthy = async () => {
      // Several at once: a check that any node may answer would mostly reach one that still does.
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? worker('GET', '/status') : svc.call('GET', '/api/v1.0/status'))));
      return answers.map((a) => a.body.redis?.healthy);
    };
    try {
      const port = await masterPortOf(svc.core.redis, `${svc.core.prefix}profile`);
      await run('redis-cli', ['-p', String(port), 'client', 'pause', '3000', 'all']);
      expect(await redisHealthy()).toEqual(Array(6).fill(false));
      await until('Redis to answer again', async () => (await redisHealthy()).every((h) => h === true), 10_000);
    } finally {
      health.closeAllConnections();
      health.close();
    }
  });
});
