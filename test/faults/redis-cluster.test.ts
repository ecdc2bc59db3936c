import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { startRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster.js';
import { countBroadcasts, postCallback, provider, RECIPIENT, simCallbackBody, until, withdraw } from '../pipeline/support.js';

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
    loop = await startLoop({ ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } }, { env: { REDIS_URL: cluster.url, REDIS_PREFIX: `{t${randomUUID().slice(0, 8)}}` } });
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
            key: 'test-withdraw-key-0123456789',
            body: { recipientAddress: RECIPIENT, amount: '0.001', description: `cluster ${i}` },
            headers: { 'idempotency-key': `cluster-${i}` },
          }),
        ),
      );
      expect(res.map((r) => r.status)).toEqual(Array(12).fill(200));
      const again = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
        key: 'test-withdraw-key-0123456789',
        body: { recipientAddress: RECIPIENT, amount: '0.001', description: 'cluster 0' },
        headers: { 'idempotency-key': 'cluster-0' },
      });
      expect(again.body.operationID).toBe(res[0]!.body.operationID);
      const done = await Promise.all(res.map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 60_000)));
      expect(done.map((d) => d.status)).toEqual(Array(12).fill('CONFIRMED'));
      const p = provider(chain.anvil.url);
      try {
        expect(await p.getTransactionCount(v.address, 'latest')).toBe(12);
      } finally {
        p.destroy();
      }
      // A late duplicate of a delivered callback is answered, and nothing more is sent.
      const late = await postCallback(loop.svc, 'ethdev', simCallbackBody(loop, res[3]!.body.operationID as string));
      expect([late.status, late.body.outcome]).toEqual([200, 'duplicate']);
      expect(counter.calls).toBe(12);
    } finally {
      counter.restore();
    }
  });

  it('a held-back callback posted five times at once: one queued, one transaction, CONFIRMED', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    loop.custody.sim.setFaults({ dropCallback: true }, v.vaultId);
    const r = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.001', description: 'held' });
    expect(r.status).toBe(200);
    await until('the quorum to sign', () => loop.custody.sim.operation(r.body.operationID)?.status === 'COMPLETED');
    const answers = await Promise.all(Array.from({ length: 5 }, () => postCallback(loop.svc, 'ethdev', simCallbackBody(loop, r.body.operationID))));
    expect(answers.filter((a) => a.body.outcome === 'queued')).toHaveLength(1);
    const done = await loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED', 60_000);
    expect(done.txids).toHaveLength(1);
  });
});
