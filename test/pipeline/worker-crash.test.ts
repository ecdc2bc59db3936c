import type { ChildProcess } from 'node:child_process';
import type { JsonRpcProvider } from 'ethers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BroadcastResult } from '../../src/ledger/adaptor.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { spawnHangingWorker } from './spawn-worker.js';
import { countBroadcasts, provider, RECIPIENT, txsFrom, withdraw } from './support.js';

/**
 * A real worker process (`src/worker-main.ts`) takes the broadcast job and is SIGKILLed at the
 * moment of broadcast (a preload stops it there and says so). Another worker then finds the
 * job stalled once its lock (JOB_LOCK_MS=2000) expires, and finishes it: one transaction.
 */
describe('a worker killed mid-broadcast: another worker completes the job, one transaction', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let ledgers: Record<string, unknown>;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    chain = await startTestChain();
    ledgers = { ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } };
    // The API process runs no workers: the only worker is the one the test starts.
    loop = await startLoop(ledgers, { workers: false });
    p = provider(chain.anvil.url);
  });
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    p?.destroy();
    await loop?.stop();
    await chain?.stop();
  });

  async function spawnWorker(plan: string[]) {
    const w = await spawnHangingWorker(loop, ledgers, plan);
    child = w.proc;
    return w;
  }

  it('one job killed after its transaction reached the node, one before: both complete, one transaction each', async () => {
    const vaults = [await loop.vault('ethdev'), await loop.vault('ethdev')];
    for (const v of vaults) await chain.funder.sendEth(v.address, 10n ** 17n);
    const { proc, hangs } = await spawnWorker(['after', 'before']);
    const store = loop.svc.pipeline!.deps.store;

    // One at a time, so the plan's order is the withdrawals' order.
    const ops: string[] = [];
    for (const [i, v] of vaults.entries()) {
      const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: `crash ${i}` });
      expect(res.status).toBe(200);
      ops.push(res.body.operationID as string);
      expect(await hangs(i + 1)).toEqual(['sent', 'held'].slice(0, i + 1));
    }
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;

    // What the dead worker left: txids recorded before sending, status SIGNED; the first
    // transaction is on chain (automine), the second never left the process.
    const left = await Promise.all(ops.map(async (id) => (await store.resolve(id))!));
    for (const op of left) {
      expect(op.status).toBe('SIGNED');
      expect(op.txids).toHaveLength(1);
      expect(op.broadcastAttempted).toBe(true);
    }
    expect(await p.getTransactionCount(vaults[0]!.address, 'latest')).toBe(1);
    expect(await p.getTransactionCount(vaults[1]!.address, 'latest')).toBe(0);

    const results: BroadcastResult[] = [];
    const counter = countBroadcasts(loop.svc, 'ethdev', async (real, tx) => {
      const r = await real(tx);
      results.push(r);
      return r;
    });
    const second = await loop.svc.pipeline!.startWorkers();
    try {
      for (const [i, v] of vaults.entries()) {
        const done = await loop.waitFor(v.vaultId, ops[i]!, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 20_000);
        expect(done.status, done.failureReason).toBe('CONFIRMED');
        expect(done.txids).toEqual(left[i]!.txids);
        expect(done.history.map((h: { status: string }) => h.status)).toEqual(['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED']);
        // Exactly one transaction from each vault, the one recorded before the crash.
        expect(await p.getTransactionCount(v.address, 'latest')).toBe(1);
        expect(await txsFrom(p, v.address)).toEqual(left[i]!.txids);
        const job = await loop.svc.pipeline!.deps.queues.broadcast.getJob(`broadcast-${left[i]!.id}`);
        expect(await job?.getState()).toBe('completed');
      }
      // The second worker sent each once more; the node already knew the first one.
      expect(counter.calls).toBe(2);
      expect(results.map((r) => [r.txid, r.alreadyKnown]).sort()).toEqual(
        [
          [left[0]!.txids[0], true],
          [left[1]!.txids[0], false],
        ].sort(),
      );
    } finally {
      counter.restore();
      await second.close();
    }
  });
});
