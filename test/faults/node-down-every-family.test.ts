import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoop, type Loop } from '../helpers/loop.js';
import { countBroadcasts, postCallback, signedCallbackBody, switchableProxy, until, withdraw, type SwitchableProxy } from '../pipeline/support.js';
import { FAMILY_LEDGERS, startFamilyNodes, type FamilyNodes } from './family-nodes.js';

const portOf = (url: string) => Number(new URL(url).port);

/**
 * Every ledger family's node goes down while a withdrawal is asked for (503, nothing stored or
 * held), and between the quorum's signature and the broadcast, and comes back: the withdrawal
 * waits SIGNED through failed attempts, then goes out once and ends CONFIRMED. The service
 * reaches each node only through a proxy the test switches off and on (Solana: in front of
 * the LiteSVM JSON-RPC facade, which counts what reaches it).
 */
describe('the node down at broadcast, then back: every ledger family', () => {
  let nodes: FamilyNodes;
  let loop: Loop;
  const proxies: Record<string, SwitchableProxy> = {};

  beforeAll(async () => {
    nodes = await startFamilyNodes();
    for (const c of nodes.cases) proxies[c.ledgerId] = await switchableProxy({ host: '127.0.0.1', port: portOf(c.nodeUrl) });
    loop = await startLoop(
      nodes.ledgers({ urls: Object.fromEntries(Object.entries(proxies).map(([id, p]) => [id, p.url])) }),
      // Many quick attempts, so the outage spans several of them.
      { env: { BROADCAST_ATTEMPTS: '50' } },
    );
  });
  afterAll(async () => {
    await loop?.stop();
    await Promise.all(Object.values(proxies).map((p) => p.close()));
    await nodes?.stop();
  });

  for (const ledgerId of FAMILY_LEDGERS) {
    it(`${ledgerId}: asked for while the node is down: 503, nothing stored or held; SIGNED while it is down, one transaction once it is back, CONFIRMED`, async () => {
      const c = nodes.case(ledgerId);
      const node = proxies[c.ledgerId] as SwitchableProxy;
      const v = await c.readyVault(loop);
      const atNode = c.markSends?.();
      const counter = countBroadcasts(loop.svc, c.ledgerId);
      try {
        loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
        const recipient = (await loop.vault(c.ledgerId)).address;
        // Asked for while the node is down: refused as retryable, nothing stored, nothing held
        // (an Ethereum nonce, Bitcoin outputs, a Stellar sequence, Solana's durable nonce): the
        // same request once the node is back goes through.
        const stored = (await loop.svc.pipeline!.deps.store.listForVault(v.vaultId, 0, 10)).total;
        node.off();
        const early = await withdraw(loop.svc, v.vaultId, { recipientAddress: recipient, amount: c.amount, description: 'node down' });
        node.on();
        expect(early.status, JSON.stringify(early.body)).toBe(503);
        expect(early.headers.get('retry-after')).toBeTruthy();
        expect(early.body).toMatchObject({ errCode: expect.any(String), title: expect.any(String), details: expect.any(String) });
        expect((await loop.svc.pipeline!.deps.store.listForVault(v.vaultId, 0, 10)).total).toBe(stored);
        const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: recipient, amount: c.amount, description: 'node down' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const operationID = res.body.operationID as string;
        await until('the quorum to sign', () => loop.custody.control.operation(operationID)?.status === 'COMPLETED');
        node.off();
        const cb = await postCallback(loop.svc, c.ledgerId, signedCallbackBody(loop, operationID));
        expect([cb.status, cb.body.outcome]).toEqual([200, 'queued']);
        await until('two failed attempts', () => counter.failures >= 2, 30_000);
        const held = await loop.waitFor(v.vaultId, operationID, () => true);
        expect(held.status).toBe('SIGNED');
        node.on();
        const done = await loop.waitFor(v.vaultId, operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 60_000);
        expect(done.status, done.failureReason).toBe('CONFIRMED');
        expect(done.txids).toHaveLength(1);
        // Every successful send was the same transaction.
        expect(new Set(counter.sent)).toEqual(new Set(done.txids));
        if (atNode) {
          // At the node itself (Solana's facade): nothing arrived while it was down, then one send, executed once.
          expect(atNode()).toEqual({ requests: done.txids, executed: done.txids });
        }
      } finally {
        counter.restore();
        node.on();
      }
    });
  }
});
