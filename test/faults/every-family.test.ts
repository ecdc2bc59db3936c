import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broadcastJobId } from '../../src/withdrawals/jobs/queues.js';
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
          const res = await withdraw(loop.svc, v.vaultId, {
            recipientAddress: (await loop.vault(c.ledgerId)).address,
            amount: c.amount,
            description: `forgery ${made.length}`,
          });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          const operationID = res.body.operationID as string;
          const body = await until('the quorum to sign', () =>
            loop.custody.control.operation(operationID)?.status === 'COMPLETED' ? signedCallbackBody(loop, operationID) : undefined,
          );
          made.push({ vaultId: v.vaultId, operationID, body });
        }
        const [mine, other] = made as [(typeof made)[0], (typeof made)[0]];
        // Each forgery with the refusal it must get: [status, errCode, reason or the 401's words].
        const refused = (reason: string, status = 400) => [status, 'ERR_VERIFICATION_FAILED', reason];
        const unauthorized = (why: string) => [401, 'ERR_UNAUTHORIZED', `Callback authentication failed: ${why}`];
        const forgeries: [string, Body, unknown[], { secret?: string; nowMs?: number }?][] = [
          ['a damaged signature', { ...mine.body, signatures: mine.body.signatures.map((s, i) => (i === 0 ? flipHexByte(s) : s)) }, refused('bad-signature')],
          ['another vault’s key echoed', { ...mine.body, publicKeys: other.body.publicKeys }, refused('key-mismatch')],
          [
            'an altered digest',
            { ...mine.body, dataToSign: mine.body.dataToSign.map((d, i) => (i === 0 ? flipHexByte(d, 0) : d)) },
            refused('unknown-operation', 404),
          ],
          ['another operation’s signatures over our digests', { ...mine.body, signatures: other.body.signatures, v: other.body.v }, refused('bad-signature')],
          [
            'another key’s signatures and key (swapped key)',
            { ...mine.body, publicKeys: other.body.publicKeys, signatures: other.body.signatures, v: other.body.v },
            refused('key-mismatch'),
          ],
          ['a wrong HMAC secret', mine.body, unauthorized('bad-hmac'), { secret: 'not-the-callback-secret-000' }],
          ['a stale HMAC timestamp', mine.body, unauthorized('stale-timestamp'), { nowMs: Date.now() - 3_600_000 }],
        ];
        for (const [what, body, expected, opts] of forgeries) {
          const r = await postCallback(loop.svc, c.ledgerId, body, opts);
          const got = [r.status, r.body.errCode, r.status === 401 ? r.body.details : r.body.reason];
          expect(got, `${what}: ${JSON.stringify(r.body)}`).toEqual(expected);
        }
        // A real callback for the ledger it is not for is refused too.
        const elsewhere = FAMILY_LEDGERS.find((x) => x !== c.ledgerId)!;
        const wrongLedger = await postCallback(loop.svc, elsewhere, mine.body);
        expect([wrongLedger.status, wrongLedger.body.errCode, wrongLedger.body.reason], JSON.stringify(wrongLedger.body)).toEqual(refused('ledger-mismatch'));
        // An accepted callback stores its signatures and enqueues the broadcast before its answer:
        // after the refusals, neither is there.
        const { store, queues } = loop.svc.pipeline!.deps;
        const id = (await store.resolve(mine.operationID))!.id;
        expect((await store.signatures(id)).size).toBe(0);
        expect(await queues.broadcast.getJob(broadcastJobId(id))).toBeUndefined();
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
        const before = await queues.broadcast.getJob(broadcastJobId(id));
        const replay = await postCallback(loop.svc, c.ledgerId, mine.body);
        expect([replay.status, replay.body.outcome]).toEqual([200, 'duplicate']);
        // The answer comes after any enqueue: the broadcast job is the finished one, nothing is queued again.
        const job = await queues.broadcast.getJob(broadcastJobId(id));
        expect([await job?.getState(), job?.finishedOn, job?.attemptsMade]).toEqual(['completed', before?.finishedOn, before?.attemptsMade]);
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
