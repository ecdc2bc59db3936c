import { afterAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/platform/errors.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { parseOutboxEntry, type WithdrawalEvent } from '../../src/withdrawals/store/outbox.js';
import { testRedis } from '../helpers/redis.js';
import { fakeOperation } from './support.js';

describe('outbox: every status change writes its event in the same step', () => {
  const { redis, prefix } = testRedis();
  const store = new OperationStore(redis, prefix);
  afterAll(() => redis.disconnect());

  const events = async (withdrawalId: string): Promise<WithdrawalEvent[]> =>
    (await redis.xrange(store.outboxKey, '-', '+')).map(([, f]) => parseOutboxEntry(f)).filter((e) => e.withdrawalId === withdrawalId);

  it('creation and each transition append one numbered event carrying the withdrawal as the API shows it', async () => {
    const op = fakeOperation();
    await store.create(op);
    await store.linkCustodyId(op, `custody-${op.id}`);
    await store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['0xaa'] }));
    await store.update(op.id, (o) => ({ ...o, confirmations: 1 }));
    await store.transition(op.id, ['SIGNED'], 'BROADCAST');
    await store.transition(op.id, ['BROADCAST'], 'CONFIRMED');
    const evs = await events(op.id);
    expect(evs.map((e) => [e.sequence, e.type, e.withdrawal.status])).toEqual([
      [1, 'withdrawal.created', 'EXECUTING'],
      [2, 'withdrawal.sign_requested', 'EXECUTING'],
      [3, 'withdrawal.signed', 'SIGNED'],
      [4, 'withdrawal.broadcast', 'BROADCAST'],
      [5, 'withdrawal.confirmed', 'CONFIRMED'],
    ]);
    expect(new Set(evs.map((e) => e.id)).size).toBe(5);
    // One id: the service's own from the first event on; the custody id only once the custody service gave it.
    expect(evs.every((e) => e.withdrawal.withdrawalId === op.id)).toBe(true);
    expect(evs[0]?.withdrawal).not.toHaveProperty('operationID');
    expect(evs[1]?.withdrawal.operationID).toBe(`custody-${op.id}`);
    expect(evs[2]?.withdrawal.txids).toEqual(['0xaa']);
    expect(evs[4]?.withdrawal).toMatchObject({ isComplete: true, confirmations: 1, vaultId: op.vaultId, ledgerId: op.ledgerId });
    expect(evs[4]?.withdrawal.history.map((h) => h.status)).toEqual(['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED']);
  });

  it('the custody id of a withdrawal that ended before its sign request answered is kept, without a sign_requested event after the failed one', async () => {
    const op = fakeOperation();
    await store.create(op);
    // A cancel won the race with the sign request: FAILED first, then the custody id arrives.
    await store.transition(op.id, ['EXECUTING'], 'FAILED', () => ({ failureReason: 'canceled' }));
    const linked = await store.linkCustodyId(op, `custody-${op.id}`);
    expect(linked).toMatchObject({ status: 'FAILED', operationID: `custody-${op.id}` });
    expect((await store.resolve(`custody-${op.id}`))?.id).toBe(op.id);
    expect((await events(op.id)).map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.failed']);
    // Still waiting (another writer touched it meanwhile): the event comes with the id.
    const other = fakeOperation();
    await store.create(other);
    await store.update(other.id, (o) => ({ ...o, confirmations: 0 }));
    await store.linkCustodyId(other, `custody-${other.id}`);
    expect((await events(other.id)).map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.sign_requested']);
    // Signed before the id came back (a fast quorum): the id still comes with its event.
    const fast = fakeOperation();
    await store.create(fast);
    await store.transition(fast.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['0xbb'] }));
    await store.linkCustodyId(fast, `custody-${fast.id}`);
    expect((await events(fast.id)).map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.signed', 'withdrawal.sign_requested']);
  });

  it('a refused transition or a second create writes no event', async () => {
    const op = fakeOperation();
    await store.create(op);
    await expect(store.create({ ...op, updatedAt: new Date(Date.parse(op.updatedAt) + 1).toISOString() })).rejects.toBeInstanceOf(ConflictError);
    // The very same record again (the command sent again after its answer was lost): stored once, one event.
    await store.create(op);
    expect(await store.transition(op.id, ['BROADCAST'], 'CONFIRMED')).toBeUndefined();
    expect((await events(op.id)).map((e) => e.type)).toEqual(['withdrawal.created']);
  });

  it('racing transitions: exactly one wins and exactly one event is written', async () => {
    const op = fakeOperation();
    await store.create(op);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.transition(op.id, ['EXECUTING'], i % 2 ? 'SIGNED' : 'FAILED')));
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    const evs = await events(op.id);
    expect(evs.map((e) => e.sequence)).toEqual([1, 2]);
    expect(evs[1]?.withdrawal.status).toBe(winners[0]?.status);
    expect((await store.get(op.id)).status).toBe(winners[0]?.status);
  });

  it('no change without its event: when the event cannot be written the status does not move', async () => {
    const other = new OperationStore(redis, `${prefix}broken:`);
    const op = fakeOperation();
    await other.create(op);
    // The outbox key taken by a value of another type: XADD fails inside the script.
    await redis.del(other.outboxKey);
    await redis.set(other.outboxKey, 'not a stream');
    await expect(other.transition(op.id, ['EXECUTING'], 'SIGNED')).rejects.toThrow(/WRONGTYPE/);
    expect((await other.get(op.id)).status).toBe('EXECUTING');
    const fresh = fakeOperation();
    await expect(other.create(fresh)).rejects.toThrow(/WRONGTYPE/);
    expect(await other.find(fresh.id)).toBeUndefined();
    // Once the outbox is writable again the numbering continues without a gap.
    await redis.del(other.outboxKey);
    await other.transition(op.id, ['EXECUTING'], 'SIGNED');
    const [entry] = await redis.xrange(other.outboxKey, '-', '+');
    expect(parseOutboxEntry(entry![1])).toMatchObject({ withdrawalId: op.id, sequence: 2, type: 'withdrawal.signed' });
  });

  it('transitionMany moves a run in one round trip, each with its event; a record changed meanwhile, or a server that lost the script, goes one by one', async () => {
    const ops = Array.from({ length: 4 }, () => fakeOperation());
    for (const op of ops) await store.create(op);
    const signed = await Promise.all(
      ops.map(async (op) => (await store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: [`0x${op.id.slice(0, 8)}`] })))!),
    );
    // One changed since the caller read it (its record in hand is stale), one already moved on.
    await store.update(signed[1]!.id, (o) => ({ ...o, confirmations: 0, stuck: undefined }));
    await store.transition(signed[2]!.id, ['SIGNED'], 'FAILED', undefined, 'refused meanwhile');
    const moved = await store.transitionMany(signed, ['SIGNED'], 'BROADCAST');
    expect(moved.map((o) => o.status)).toEqual(['BROADCAST', 'BROADCAST', 'FAILED', 'BROADCAST']);
    for (const op of [signed[0]!, signed[1]!, signed[3]!]) {
      const stored = await store.get(op.id);
      expect(stored.status).toBe('BROADCAST');
      expect(stored.history.map((h) => h.status)).toEqual(['EXECUTING', 'SIGNED', 'BROADCAST']);
      expect((await events(op.id)).map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.signed', 'withdrawal.broadcast']);
    }
    expect((await events(signed[2]!.id)).map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.signed', 'withdrawal.failed']);

    // A Redis that lost its scripts (restart, SCRIPT FLUSH): the batch fails with NOSCRIPT and each goes on its own.
    const more = Array.from({ length: 3 }, () => fakeOperation());
    for (const op of more) await store.create(op);
    const signedMore = await Promise.all(more.map(async (op) => (await store.transition(op.id, ['EXECUTING'], 'SIGNED'))!));
    await redis.script('FLUSH');
    expect((await store.transitionMany(signedMore, ['SIGNED'], 'BROADCAST')).map((o) => o.status)).toEqual(['BROADCAST', 'BROADCAST', 'BROADCAST']);
    for (const op of signedMore) expect((await events(op.id)).map((e) => e.sequence)).toEqual([1, 2, 3]);
  });
});
