import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoop, type Loop } from '../helpers/loop.js';
import { countBroadcasts, postCallback, signedCallbackBody, until, withdraw } from '../pipeline/support.js';
import { FAMILY_LEDGERS, startFamilyNodes, type FamilyNodes } from './family-nodes.js';

type Body = ReturnType<typeof signedCallbackBody>;

const flipHexByte = (hex: string, at = 40): string => {
  const h = hex.replace(/^0x/, '');
  const byte = (parseInt(h.slice(at, at + 2), 16) ^ 0x01).toString(16).padStart(2, '0');
  return h.slice(0, at) + byte + h.slice(at + 2);
};

/**
 * The forgery and duplicate checks of the callback receiver, for every ledger family on its
 * real local node: each forged copy of a real callback is refused and nothing is broadcast;
 * then ten concurrent copies of the real one give one `queued`, one broadcast, CONFIRMED, and
 * the real one replayed afterwards is a `duplicate` that sends nothing.
 */
describe('forged and duplicate callbacks, every ledger family', () => {
  let nodes: FamilyNodes;
  let loop: Loop;

  beforeAll(async () => {
    nodes = await startFamilyNodes();
    loop = await startLoop(nodes.ledgers());
  });
  afterAll(async () => {
    await loop?.stop();
    await nodes?.stop();
  });

  for (const ledgerId of FAMILY_LEDGERS) {
    it(`${ledgerId}: every forgery refused with nothing broadcast; 10 concurrent real copies → one queued, one broadcast; a replay after CONFIRMED changes nothing`, async () => {
      const c = nodes.case(ledgerId);
      // Ready vaults first: Solana's are set up by a withdrawal of their own.
      const vaults = [await c.readyVault(loop), await c.readyVault(loop)];
      const atNode = c.markSends?.();
      const counter = countBroadcasts(loop.svc, c.ledgerId);
      try {
        // Two vaults with a withdrawal each, their callbacks held back: the material forgers reuse.
        const made: { vaultId: string; operationID: string; body: Body }[] = [];
        for (const v of vaults) {
          loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
          const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: (await loop.vault(c.ledgerId)).address, amount: c.amount, description: `forgery ${made.length}` });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          const operationID = res.body.operationID as string;
          const body = await until('the quorum to sign', () => (loop.custody.control.operation(operationID)?.status === 'COMPLETED' ? signedCallbackBody(loop, operationID) : undefined));
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
        const elsewhere = FAMILY_LEDGERS.find((x) => x !== c.ledgerId)!;
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
        // The same callback replayed once the withdrawal is done: acknowledged, nothing sent again.
        const replay = await postCallback(loop.svc, c.ledgerId, mine.body);
        expect([replay.status, replay.body.outcome]).toEqual([200, 'duplicate']);
        await new Promise((r) => setTimeout(r, 300));
        expect(counter.calls).toBe(1);
        const after = await loop.waitFor(mine.vaultId, mine.operationID, () => true);
        expect([after.status, after.txids]).toEqual(['CONFIRMED', done.txids]);
        if (atNode) {
          // At the node itself (Solana's facade): one send request, one executed transaction.
          expect(atNode()).toEqual({ requests: done.txids, executed: done.txids });
        }
      } finally {
        counter.restore();
      }
    });
  }
});
