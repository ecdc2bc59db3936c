import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { attemptsOf, newOperation, type Operation, renderAttempt, signedOf, withAttempt } from '../../src/withdrawals/model/operation.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { testRedis } from '../helpers/redis.js';

const { redis, prefix } = testRedis();
const store = new OperationStore(redis, prefix);

function operation(): Operation {
  return newOperation({
    id: randomUUID(),
    vaultId: 'v1',
    ledgerId: 'ethdev',
    request: { recipientAddress: '0xB0', asset: 'ETH', amount: '1', description: 'attempts', fee: 'MEDIUM' },
    recipientAddress: '0xB0',
    unsigned: { txs: [{ serialized: '02' }], payloads: [], fee: '21000', state: {} },
  });
}

describe('attempts of a withdrawal, and the operation store under concurrent writers', () => {
  afterAll(() => redis.disconnect());

  it('a record made before attempts existed shows its original attempt, derived from its own fields', () => {
    const op: Operation = {
      ...operation(),
      operationID: 'custody-1',
      status: 'BROADCAST',
      txids: ['0xaa'],
      history: [
        { status: 'EXECUTING', at: '2026-01-01T00:00:00.000Z' },
        { status: 'SIGNED', at: '2026-01-01T00:00:01.000Z' },
        { status: 'BROADCAST', at: '2026-01-01T00:00:02.000Z' },
      ],
    };
    const [original] = attemptsOf(op);
    expect(renderAttempt(original!)).toEqual({
      kind: 'original',
      status: 'broadcast',
      txids: ['0xaa'],
      fee: '21000',
      createdAt: op.createdAt,
      sentAt: '2026-01-01T00:00:02.000Z',
      operationID: 'custody-1',
    });
    // No signed bytes were kept by such a record: nothing to resend, nothing invented.
    expect(signedOf(op, 0)).toEqual([]);
    expect(attemptsOf({ ...op, status: 'FAILED', failureReason: 'x' })[0]).toMatchObject({ status: 'failed', failureReason: 'x' });
    expect(withAttempt(op, 0, (a) => ({ ...a, rebroadcasts: 2 }))[0]?.rebroadcasts).toBe(2);
  });

  it('concurrent updates and a transition never overwrite each other', async () => {
    const op = operation();
    await store.create(op);
    await store.transition(op.id, ['EXECUTING'], 'BROADCAST');
    const writers = Array.from({ length: 12 }, (_, i) =>
      store.update(op.id, (o) => ({ ...o, history: [...o.history, { status: o.status, at: new Date().toISOString(), detail: `note ${i}` }] })),
    );
    const moved = store.transition(op.id, ['BROADCAST'], 'CONFIRMED', () => ({ confirmations: 3 }));
    await Promise.all([...writers, moved]);
    const final = await store.get(op.id);
    expect(final.status).toBe('CONFIRMED');
    expect(final.confirmations).toBe(3);
    const notes = final.history.flatMap((h) => (h.detail?.startsWith('note ') ? [h.detail] : []));
    expect(notes.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `note ${i}`).sort());
    // A transition from a status the record has left does nothing.
    expect(await store.transition(op.id, ['BROADCAST'], 'FAILED')).toBeUndefined();
    expect((await store.get(op.id)).status).toBe('CONFIRMED');
  });
});
