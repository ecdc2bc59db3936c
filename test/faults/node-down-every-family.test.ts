import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoop, type Loop } from '../helpers/loop.js';
import { countBroadcasts, postCallback, simCallbackBody, switchableProxy, until, withdraw, type SwitchableProxy } from '../pipeline/support.js';
import { startThreeNodes, type ThreeNodes } from './three-families.js';

const portOf = (url: string) => Number(new URL(url).port);

/**
 * Every ledger family's node goes down between the quorum's signature and the broadcast, and
 * comes back: the withdrawal waits SIGNED through failed attempts, then goes out once and ends
 * CONFIRMED. The service reaches each node only through a proxy the test switches off and on.
 */
describe('the node down at broadcast, then back: every ledger family', () => {
  let nodes: ThreeNodes;
  let loop: Loop;
  const proxies: Record<string, SwitchableProxy> = {};

  beforeAll(async () => {
    nodes = await startThreeNodes();
    proxies.ethdev = await switchableProxy({ host: '127.0.0.1', port: portOf(nodes.chain.anvil.url) });
    proxies.btcregtest = await switchableProxy({ host: '127.0.0.1', port: portOf(nodes.regtest.url) });
    proxies.stellardev = await switchableProxy({ host: '127.0.0.1', port: portOf(nodes.stellar.url) });
    loop = await startLoop(
      {
        ethdev: { rpcUrl: proxies.ethdev.url, confirmations: 1 },
        btcregtest: { backend: 'esplora', url: proxies.btcregtest.url, confirmations: 1 },
        stellardev: { horizonUrl: proxies.stellardev.url, networkPassphrase: nodes.stellar.passphrase },
      },
      // Many quick attempts, so the outage spans several of them.
      { env: { BROADCAST_ATTEMPTS: '50' } },
    );
  });
  afterAll(async () => {
    await loop?.stop();
    await Promise.all(Object.values(proxies).map((p) => p.close()));
    await nodes?.stop();
  });

  for (const ledgerId of ['ethdev', 'btcregtest', 'stellardev'] as const) {
    it(`${ledgerId}: SIGNED while the node is down, one transaction once it is back, CONFIRMED`, async () => {
      const c = nodes.cases.find((x) => x.ledgerId === ledgerId)!;
      const node = proxies[c.ledgerId] as SwitchableProxy;
      const counter = countBroadcasts(loop.svc, c.ledgerId);
      try {
        const v = await loop.vault(c.ledgerId);
        await c.fund(v.address);
        loop.custody.sim.setFaults({ dropCallback: true }, v.vaultId);
        const recipient = (await loop.vault(c.ledgerId)).address;
        const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: recipient, amount: c.amount, description: 'node down' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const operationID = res.body.operationID as string;
        await until('the quorum to sign', () => loop.custody.sim.operation(operationID)?.status === 'COMPLETED');
        node.off();
        const cb = await postCallback(loop.svc, c.ledgerId, simCallbackBody(loop, operationID));
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
      } finally {
        counter.restore();
        node.on();
      }
    });
  }
});
