import { afterAll, describe, expect, it } from 'vitest';
import { acceptSignatures, attemptOfDigest } from '../../src/withdrawals/accept-signatures.js';
import { type Attempt, attemptsOf } from '../../src/withdrawals/model/operation.js';
import type { Operation } from '../../src/withdrawals/model/operation.js';
import { reconcileAttempts } from '../../src/withdrawals/sending/reconcile-attempts.js';
import { settleFromCustody } from '../../src/withdrawals/settle-from-custody.js';
import type { SigningPayload } from '../../src/ledger/adaptor.js';
import { harness, key, LEDGER, operation, payload, sign, type Key } from '../helpers/operation-kit.js';

const HOUR = 3_600_000;

/**
 * A replacement (speed-up, cancel) is settled from the custody service as an original is,
 * but its end is its own: an unsigned end fails the attempt, never the withdrawal, and the
 * sign timeout applies only once the custody service has been asked.
 */
describe('settling a replacement from the custody service', () => {
  const h = harness();
  afterAll(() => h.cleanup());

  type Remote = { status: string; statusText?: string; signatures?: string[]; v?: number[]; dataToSign?: string[]; publicKeys?: string[] } | Error;
  const depsWith = (remote: Remote) =>
    ({
      store: h.store,
      registry: h.registry,
      logger: h.logger,
      queues: h.queues,
      custody: {
        getSignOperation: async (operationID: string) => {
          if (remote instanceof Error) throw remote;
          return { operationID, isApproved: true, dataToSign: [], publicKeys: [], signatures: [], v: [], ...remote };
        },
        resend: async () => {},
      },
      config: { reconcileAfterSeconds: 120, signTimeoutSeconds: 86_400 },
    }) as never;

  /** A BROADCAST withdrawal with replacements in the given states, all `ageMs` old. */
  async function withReplacements(
    k: Key,
    replacements: { status: Attempt['status']; payload: SigningPayload; operationID?: string }[],
    ageMs: number,
  ): Promise<Operation> {
    const at = new Date(Date.now() - ageMs).toISOString();
    const op = operation([payload(k, 0)], { operationID: `orig-${Math.random()}` }, at);
    await h.store.create(op);
    await h.store.transition(op.id, ['EXECUTING'], 'BROADCAST', () => ({ txids: ['aa'] }));
    for (const r of replacements) await h.store.indexAttempt(op.id, [r.payload.digest], r.operationID);
    return h.store.update(op.id, (o) => ({
      ...o,
      attempts: [
        { ...(attemptsOf(o)[0] as Attempt), status: 'broadcast' },
        ...replacements.map((r) => ({
          kind: 'speed-up' as const,
          txids: [],
          fee: '2000',
          createdAt: at,
          status: r.status,
          ...(r.operationID ? { operationID: r.operationID } : {}),
          unsigned: { txs: [{ serialized: '02' }], payloads: [r.payload], fee: '2000', state: {} },
        })),
      ],
    }));
  }
  const statusOf = async (op: Operation, i: number) => attemptsOf(await h.store.get(op.id))[i]?.status;

  it('a declined replacement ends that attempt failed; the withdrawal goes on', async () => {
    const k = key();
    const op = await withReplacements(k, [{ status: 'signing', payload: payload(k, 0), operationID: 'declined-1' }], 1000);
    const outcome = await settleFromCustody(depsWith({ status: 'DECLINED' }), op, 1);
    expect(outcome).toBe('failed');
    const after = await h.store.get(op.id);
    expect(after.status).toBe('BROADCAST');
    expect(attemptsOf(after)[1]).toMatchObject({ status: 'failed', failureReason: 'sign operation DECLINED at the custody service' });
    expect(h.released).toEqual([]);
  });

  it('reconciliation ends a declined replacement, and applies the timeout only after asking', async () => {
    const k = key();
    const signed = payload(k, 0);
    const s = sign(k, signed.digest);
    const old = 25 * HOUR;
    const cases: [string, Remote, number, Attempt['status']][] = [
      ['declined, before the timeout', { status: 'declined' }, 1 * HOUR, 'failed'],
      ['still pending, before the timeout', { status: 'PENDING_SIGNATURE' }, 1 * HOUR, 'signing'],
      ['custody unreachable, before the timeout', new Error('connect ECONNREFUSED'), 1 * HOUR, 'signing'],
      ['still pending, past the timeout', { status: 'PENDING_SIGNATURE' }, old, 'failed'],
      ['custody unreachable, past the timeout', new Error('connect ECONNREFUSED'), old, 'failed'],
    ];
    for (const [what, remote, age, expected] of cases) {
      const op = await withReplacements(k, [{ status: 'signing', payload: payload(k, 0), operationID: `r-${what}` }], age);
      await reconcileAttempts(depsWith(remote), op);
      expect(await statusOf(op, 1), what).toBe(expected);
    }
    // Signed just before the timeout, its callback lost: past the timeout it is accepted, not failed.
    const op = await withReplacements(k, [{ status: 'signing', payload: signed, operationID: 'r-signed-late' }], old);
    const queued = h.added.length;
    await reconcileAttempts(depsWith({ status: 'COMPLETED', signatures: [s.signature], v: [s.v], dataToSign: [signed.digest], publicKeys: [k.keyId] }), op);
    expect(await statusOf(op, 1)).toBe('signing');
    expect([...(await h.store.signatures(op.id, 1)).keys()]).toEqual([0]);
    expect(h.added.slice(queued).map((a) => a.queue)).toEqual(['replace']);
  });

  it('a replacement held by a policy rule past the timeout fails with the rule in its reason', async () => {
    const k = key();
    const op = await withReplacements(k, [{ status: 'signing', payload: payload(k, 0), operationID: 'r-held' }], 25 * HOUR);
    const held = 'Held by policy rule weeklyTimeSlots: outside the weekly time slots (SAT,SUN 00:00-24:00, UTC); the next slot opens 2026-11-28T00:00:00.000Z';
    await reconcileAttempts(depsWith({ status: 'PENDING', statusText: held }), op);
    expect(attemptsOf(await h.store.get(op.id))[1]).toMatchObject({
      status: 'failed',
      failureReason: `not signed within 86400 s (SIGN_TIMEOUT_SECONDS): sign operation PENDING at the custody service (${held})`,
    });
  });

  it('a callback for a replacement that repeats a failed one’s transaction reaches the one still signing', async () => {
    const k = key();
    const same = payload(k, 0);
    const op = await withReplacements(
      k,
      [
        { status: 'failed', payload: same },
        { status: 'signing', payload: same, operationID: 'retry' },
      ],
      1000,
    );
    expect(attemptOfDigest(op, same.digest.toUpperCase())).toBe(2);
    const s = sign(k, same.digest);
    const r = await acceptSignatures(depsWith({ status: 'COMPLETED' }), LEDGER, {
      publicKeys: [k.keyId],
      providerData: '',
      dataToSign: [same.digest],
      signatures: [s.signature],
      v: [s.v],
    });
    expect(r.outcome).toBe('queued');
    expect([...(await h.store.signatures(op.id, 2)).keys()]).toEqual([0]);
    expect((await h.store.signatures(op.id, 1)).size).toBe(0);
  });
});

describe('a partial callback naming the whole original list', () => {
  const h = harness();
  afterAll(() => h.cleanup());

  it('reads each entry’s key at its payload, as it reads its digest', async () => {
    // Two inputs of two addresses (a BIP44 vault): one key each.
    const keys = [key(), key()] as const;
    const p = [payload(keys[0], 0), payload(keys[1], 1)];
    const op = operation(p, { operationID: 'whole-list' });
    await h.store.create(op);
    const s1 = sign(keys[1], p[1]!.digest);
    const deps = { store: h.store, registry: h.registry, logger: h.logger as never, queues: h.queues as never };
    const body = {
      publicKeys: keys.map((k) => k.keyId),
      providerData: '',
      dataToSign: p.map((x) => x.digest),
      signatures: [s1.signature],
      v: [s1.v],
      originalEntryIds: [1],
    };
    expect((await acceptSignatures(deps, LEDGER, body)).outcome).toBe('partial');
    expect([...(await h.store.signatures(op.id)).keys()]).toEqual([1]);
    // Entry 0's key beside entry 1's signature is still refused.
    const swapped = { ...body, publicKeys: [keys[1].keyId, keys[0].keyId] };
    await expect(acceptSignatures(deps, LEDGER, swapped)).rejects.toMatchObject({ reason: 'key-mismatch' });
  });
});
