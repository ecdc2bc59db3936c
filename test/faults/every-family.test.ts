import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoop, type Loop } from '../helpers/loop.js';
import { countBroadcasts, postCallback, simCallbackBody, until, withdraw } from '../pipeline/support.js';
import { startThreeNodes, type ThreeNodes } from './three-families.js';

type Body = ReturnType<typeof simCallbackBody>;

const flipHexByte = (hex: string, at = 40): string => {
  const h = hex.replace(/^0x/, '');
  const byte = (parseInt(h.slice(at, at + 2), 16) ^ 0x01).toString(16).padStart(2, '0');
  return h.slice(0, at) + byte + h.slice(at + 2);
};

/**
 * The forgery and duplicate checks of the callback receiver, for every ledger family on its
 * real local node: each forged copy of a real callback is refused and nothing is broadcast;
 * then ten concurrent copies of the real one give one `queued`, one broadcast, CONFIRMED.
 */
describe('forged and duplicate callbacks, every ledger family', () => {
  let nodes: ThreeNodes;
  let loop: Loop;

  beforeAll(async () => {
    nodes = await startThreeNodes();
    loop = await startLoop({
      ethdev: { rpcUrl: nodes.chain.anvil.url, confirmations: 1 },
      btcregtest: { backend: 'esplora', url: nodes.regtest.url, confirmations: 1 },
      stellardev: { horizonUrl: nodes.stellar.url, networkPassphrase: nodes.stellar.passphrase },
    });
  });
  afterAll(async () => {
    await loop?.stop();
    await nodes?.stop();
  });

  const cases = ['ethdev', 'btcregtest', 'stellardev'] as const;

  for (const ledgerId of cases) {
    it(`${ledgerId}: every forgery refused with nothing broadcast; 10 concurrent real copies → one queued, one broadcast`, async () => {
      const c = nodes.cases.find((x) => x.ledgerId === ledgerId)!;
      const counter = countBroadcasts(loop.svc, c.ledgerId);
      try {
        // Two vaults with a withdrawal each, their callbacks held back: the material forgers reuse.
        const made: { vaultId: string; operationID: string; body: Body }[] = [];
        for (const i of [0, 1]) {
          const v = await loop.vault(c.ledgerId);
          await c.fund(v.address);
          loop.custody.sim.setFaults({ dropCallback: true }, v.vaultId);
          const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: (await loop.vault(c.ledgerId)).address, amount: c.amount, description: `forgery ${i}` });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          const operationID = res.body.operationID as string;
          const body = await until('the quorum to sign', () => (loop.custody.sim.operation(operationID)?.status === 'COMPLETED' ? simCallbackBody(loop, operationID) : undefined));
          made.push({ vaultId: v.vaultId, operationID, body });
        }
        const [mine, other] = made as [(typeof made)[0], (typeof made)[0]];
        const forgeries: [string, Body, { secret?: string; nowMs?: number }?][] = [
          ['a damaged signature', { ...mine.body, signatures: mine.body.signatures.map((s, i) => (i === 0 ? flipHexByte(s) : s)) }],
          ['another vault’s key echoed', { ...mine.body, publicKeys: other.body.publicKeys }],
          ['an altered digest', { ...mine.body, dataToSign: mine.body.dataToSign.map((d, i) => (i === 0 ? flipHexByte(d, 0) : d)) }],
          ['another operation’s signatures over our digests', { ...mine.body, signatures: other.body.signatures, v: other.body.v }],
          ['another key’s signatures and key (swapped key)', { ...mine.body, publicKeys: other.body.publicKeys, signatures: other.body.signatures, v: other.body.v }],
          ['a wrong HMAC secret', mine.body, { secret: 'not-the-callback-secret-000' }],
          ['a stale HMAC timestamp', mine.body, { nowMs: Date.now() - 3_600_000 }],
        ];
        for (const [what, body, opts] of forgeries) {
          const r = await postCallback(loop.svc, c.ledgerId, body, opts);
          expect([400, 401, 404, 409], `${what}: ${JSON.stringify(r.body)}`).toContain(r.status);
          expect(r.body.errCode, what).toBeTypeOf('string');
        }
        // A real callback for the ledger it is not for is refused too.
        const elsewhere = cases.find((x) => x !== c.ledgerId)!;
        expect((await postCallback(loop.svc, elsewhere, mine.body)).status).toBe(400);
        await new Promise((r) => setTimeout(r, 300));
        expect(counter.calls).toBe(0);
        const still = (await loop.waitFor(mine.vaultId, mine.operationID, () => true)) as { status: string };
        expect(still.status).toBe('EXECUTING');

        const answers = await Promise.all(Array.from({ length: 10 }, () => postCallback(loop.svc, c.ledgerId, mine.body)));
        expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
        expect(answers.filter((a) => a.body.outcome === 'queued')).toHaveLength(1);
        const done = await loop.waitFor(mine.vaultId, mine.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
        expect(done.status, done.failureReason).toBe('CONFIRMED');
        expect(counter.calls).toBe(1);
      } finally {
        counter.restore();
      }
    });
  }
});
