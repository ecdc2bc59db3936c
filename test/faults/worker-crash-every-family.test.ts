import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BroadcastResult } from '../../src/ledger/adaptor.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { spawnHangingWorker } from '../pipeline/spawn-worker.js';
import { countBroadcasts, withdraw } from '../pipeline/support.js';
import { FAMILY_LEDGERS, startFamilyNodes, type FamilyNodes } from './family-nodes.js';

/**
 * Bitcoin, Stellar and Solana (Ethereum: test/pipeline/worker-crash.test.ts): a real worker
 * process is SIGKILLed right after its transaction reached the node, before the job finished.
 * Another worker takes the stalled job, sends the same stored transaction again (Solana: first
 * asks the node, which already has it) and the withdrawal ends CONFIRMED with exactly that one
 * transaction.
 */
const CRASHED = FAMILY_LEDGERS.filter((id) => id !== 'ethdev');

describe('a worker killed mid-broadcast, every ledger family', () => {
  let nodes: FamilyNodes;
  let loop: Loop;
  let ledgers: Record<string, unknown>;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    nodes = await startFamilyNodes();
    ledgers = nodes.ledgers({ only: CRASHED });
    // The API process runs no workers while a crash is staged: the only worker is the one the test starts.
    loop = await startLoop(ledgers, { workers: false });
  });
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await loop?.stop();
    await nodes?.stop();
  });

  for (const ledgerId of CRASHED) {
    it(`${ledgerId}: killed after the send, finished by another worker, one transaction`, async () => {
      const c = nodes.case(ledgerId);
      // This process's own workers make the vault ready (Solana's setup is a withdrawal), then stop.
      const setup = await loop.svc.pipeline!.startWorkers();
      const v = await c.readyVault(loop).finally(() => setup.close());
      const atNode = c.markSends?.();
      const worker = await spawnHangingWorker(loop, ledgers, ['after']);
      child = worker.proc;
      const res = await withdraw(loop.svc, v.vaultId, {
        recipientAddress: (await loop.vault(ledgerId)).address,
        amount: c.amount,
        description: 'worker crash',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await worker.hangs(1)).toEqual(['sent']);
      const exited = new Promise((r) => worker.proc.once('exit', r));
      worker.proc.kill('SIGKILL');
      await exited;
      const left = (await loop.svc.pipeline!.deps.store.resolve(res.body.operationID))!;
      expect(left.status).toBe('SIGNED');
      expect(left.txids).toHaveLength(1);

      const results: BroadcastResult[] = [];
      const counter = countBroadcasts(loop.svc, ledgerId, async (real, tx) => {
        const r = await real(tx);
        results.push(r);
        return r;
      });
      const second = await loop.svc.pipeline!.startWorkers();
      try {
        const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 40_000);
        expect(done.status, done.failureReason).toBe('CONFIRMED');
        expect(done.txids).toEqual(left.txids);
        // The second worker sent the stored transaction once more, and the node already had it.
        expect(results.map((r) => [r.txid, r.alreadyKnown])).toEqual([[left.txids[0], true]]);
        if (atNode) {
          // At the node itself (Solana's facade): the killed worker's one send, executed once; the
          // second worker found the signature there and sent nothing.
          expect(atNode()).toEqual({ requests: left.txids, executed: left.txids });
        }
      } finally {
        counter.restore();
        await second.close();
      }
    });
  }
});
