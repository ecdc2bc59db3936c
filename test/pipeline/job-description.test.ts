import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethRejection } from '../../adaptors/ethereum/network/errors.js';
import { broadcastJobId, confirmJobId, type OperationJobData, type QueuedOperationJob } from '../../src/withdrawals/jobs/queues.js';
import { ADMIN_KEY } from '../helpers/service.js';
import { countBroadcasts, RECIPIENT, startEthLoop, until, withdraw, type EthLoop } from './support.js';

/** What the dashboard's API answers for one job (the same data the page renders). */
async function dashboardJob(eth: EthLoop, queue: string, jobId: string) {
  const res = await eth.loop.svc.call('GET', `/admin/queues/api/queues/${queue}/${jobId}`, { key: ADMIN_KEY });
  expect(res.status).toBe(200);
  const logs = await eth.loop.svc.call('GET', `/admin/queues/api/queues/${queue}/${jobId}/logs`, { key: ADMIN_KEY });
  return { job: res.body.job, logs: (logs.body as { logs?: string[] }).logs ?? (logs.body as string[]) };
}

describe('jobs say which withdrawal they are about, and log each step', () => {
  let eth: EthLoop;

  beforeAll(async () => {
    eth = await startEthLoop();
  });
  afterAll(() => eth.stop());

  it('a confirmed withdrawal: its broadcast and confirm jobs show ledger, vault, amount, recipient, ids and txid', async () => {
    const v = await eth.loop.vault('ethdev');
    await eth.chain.funder.sendEth(v.address, 10n ** 18n);
    const res = await withdraw(eth.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.031415', description: 'described' });
    const done = await eth.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    const op = await eth.loop.svc.pipeline!.deps.store.resolve(done.operationID);
    expect(op).toBeDefined();
    // Named by the service's own id, as the POST answered it; the custody operation id beside it.
    expect(done.withdrawalId).toBe(res.body.withdrawalId);
    expect(op!.id).toBe(res.body.withdrawalId);
    const about = {
      withdrawal: res.body.withdrawalId,
      operationID: done.operationID,
      api: `/api/v1.0/vaults/${v.vaultId}/withdrawals/${res.body.withdrawalId}`,
      ledger: 'ethdev',
      vault: v.vaultId,
      asset: 'ETH',
      amount: '0.031415',
      recipient: RECIPIENT,
      status: 'CONFIRMED',
      txids: done.txids.join(' '),
    };

    const b = await dashboardJob(eth, 'broadcast', broadcastJobId(op!.id));
    expect(b.job.data.withdrawalId).toBe(op!.id);
    expect(b.job.data.about).toMatchObject(about);
    expect(b.job.name).toBe(`broadcast · ethdev · 0.031415 ETH → ${RECIPIENT.slice(0, 6)}…${RECIPIENT.slice(-6)} · CONFIRMED · ${res.body.withdrawalId}`);
    const bl = b.logs.join('\n');
    expect(bl).toContain(`assembled 1 signed transaction(s) from 1 signature(s); txid ${done.txids[0]}`);
    expect(bl).toContain(`sent ${done.txids[0]}; the node answered: accepted`);
    expect(bl).toContain('done: broadcast');

    const c = await dashboardJob(eth, 'confirm', confirmJobId(op!.id));
    expect(c.job.data.about).toMatchObject({ ...about, confirmations: done.confirmations });
    expect(c.job.name).toContain('confirm · ethdev · 0.031415 ETH');
    expect(c.job.name).toContain('CONFIRMED');
    expect(c.job.name.endsWith(` · ${res.body.withdrawalId}`)).toBe(true);
    expect(c.logs.join('\n')).toMatch(/confirmations 1\/1 \(confirmed\)[\s\S]*done: confirmed/);
    // The API knows the withdrawal by the id the job shows.
    expect((await eth.loop.svc.call('GET', about.api, { key: ADMIN_KEY })).body.status).toBe('CONFIRMED');
  });

  it("a withdrawal the ledger rejects for good (bytes that can never be valid): its job shows FAILED with the ledger's reason and the node's answer in the log", async () => {
    eth.counter.restore();
    const counter = countBroadcasts(eth.loop.svc, 'ethdev', async () => {
      throw ethRejection('invalid sender: invalid transaction v, r, s values', -32000, 'ethdev node refused nonce 0');
    });
    try {
      const v = await eth.loop.vault('ethdev');
      await eth.chain.funder.sendEth(v.address, 10n ** 18n);
      const res = await withdraw(eth.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.027182', description: 'rejected' });
      const failed = await eth.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'FAILED');
      const op = await eth.loop.svc.pipeline!.deps.store.resolve(failed.operationID);
      const b = await dashboardJob(eth, 'broadcast', broadcastJobId(op!.id));
      expect(b.job.data.about).toMatchObject({ ledger: 'ethdev', amount: '0.027182', status: 'FAILED', failureReason: failed.failureReason });
      expect(failed.failureReason).toContain('invalid transaction v, r, s values');
      expect(b.job.name).toContain('FAILED');
      expect(b.logs.join('\n')).toContain(
        'the node answered: Rejected by the ledger: ethdev node refused nonce 0: invalid sender: invalid transaction v, r, s values (final: the transaction can never be valid)',
      );
      expect(counter.calls).toBe(1);
    } finally {
      counter.restore();
    }
  });

  it('an edited `about` changes nothing but the view: the worker sends what the store holds and the description is restored', async () => {
    const v = await eth.loop.vault('ethdev');
    await eth.chain.funder.sendEth(v.address, 10n ** 18n);
    const broadcast = eth.loop.svc.pipeline!.deps.queues.broadcast;
    await broadcast.pause();
    try {
      const res = await withdraw(eth.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.016180', description: 'edited view' });
      const op = await eth.loop.svc.pipeline!.deps.store.resolve(res.body.operationID);
      const job = await until('the broadcast job', async () => (await broadcast.getJob(broadcastJobId(op!.id))) ?? false);
      // What someone with write access could do from the dashboard: rewrite the description.
      await job.updateData({ withdrawalId: op!.id, about: { ...job.data.about!, amount: '99', recipient: '0x00000000000000000000000000000000000000EE' } });
    } finally {
      await broadcast.resume();
    }
    const [item] = (await eth.loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: ADMIN_KEY })).body.items;
    const done = await eth.loop.waitFor(v.vaultId, item.operationID, (o) => o.status === 'CONFIRMED');
    const tx = await eth.p.getTransaction(done.txids[0]);
    expect(tx?.to).toBe(RECIPIENT);
    expect(tx?.value).toBe(16_180_000_000_000_000n);
    const op = await eth.loop.svc.pipeline!.deps.store.resolve(done.operationID);
    const b = await dashboardJob(eth, 'broadcast', broadcastJobId(op!.id));
    expect(b.job.data.about).toMatchObject({ amount: '0.016180', recipient: RECIPIENT, status: 'CONFIRMED' });
  });

  it('a job added by an earlier version, the id under `operationId`, is still processed', async () => {
    const v = await eth.loop.vault('ethdev');
    await eth.chain.funder.sendEth(v.address, 10n ** 18n);
    const broadcast = eth.loop.svc.pipeline!.deps.queues.broadcast;
    await broadcast.pause();
    let id: string;
    try {
      const res = await withdraw(eth.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.014142', description: 'queued before the upgrade' });
      const op = await eth.loop.svc.pipeline!.deps.store.resolve(res.body.operationID);
      id = op!.id;
      const job = await until('the broadcast job', async () => (await broadcast.getJob(broadcastJobId(id))) ?? false);
      // The data as the earlier version wrote it: no `withdrawalId`.
      const earlier: QueuedOperationJob = { operationId: id, about: job.data.about };
      await job.updateData(earlier as OperationJobData);
      expect((await broadcast.getJob(broadcastJobId(id)))!.data).not.toHaveProperty('withdrawalId');
    } finally {
      await broadcast.resume();
    }
    const [item] = (await eth.loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: ADMIN_KEY })).body.items;
    const done = await eth.loop.waitFor(v.vaultId, item.operationID, (o) => o.status === 'CONFIRMED');
    expect((await eth.p.getTransaction(done.txids[0]))?.value).toBe(14_142_000_000_000_000n);
    const b = await dashboardJob(eth, 'broadcast', broadcastJobId(id!));
    expect(b.logs.join('\n')).toContain('done: broadcast');
    // Its refreshed description writes the data in the current shape.
    expect(b.job.data.withdrawalId).toBe(id!);
  });
});
