import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { minReservationMs, Reservations, type ReservationEvent } from '../../src/ledger/reservations.js';
import { operationKeys, reservationKeys } from '../../src/platform/redis-keys.js';
import { testRedis } from '../helpers/redis.js';
import { ageReservations } from '../helpers/reservation-clock.js';

describe('reservations in Redis', () => {
  const { redis, prefix, url } = testRedis();
  const r = new Reservations(redis, prefix);
  afterAll(() => redis.disconnect());

  it('hands out distinct consecutive numbers under concurrency, from several clients', async () => {
    const others = [new Redis(url), new Redis(url)];
    const rs = [r, ...others.map((c) => new Reservations(c, prefix))];
    const got = await Promise.all(Array.from({ length: 60 }, (_, i) => rs[i % 3]!.reserveSequence('eth:a', 5n, `op${i}`)));
    expect(new Set(got).size).toBe(60);
    expect([...got].sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 60 }, (_, i) => 5n + BigInt(i)));
    others.forEach((c) => c.disconnect());
  });

  it('starts from the chain when the chain is ahead', async () => {
    expect(await r.reserveSequence('eth:b', 3n, 'x')).toBe(3n);
    expect(await r.reserveSequence('eth:b', 10n, 'y')).toBe(10n);
    expect(await r.reserveSequence('eth:b', 10n, 'z')).toBe(11n);
  });

  it('refills a released number before handing out new ones; only the owner releases', async () => {
    const a = await r.reserveSequence('eth:c', 0n, 'a');
    const b = await r.reserveSequence('eth:c', 0n, 'b');
    expect([a, b]).toEqual([0n, 1n]);
    expect(await r.releaseSequence('eth:c', a, 'not-a')).toBe(false);
    expect(await r.releaseSequence('eth:c', a, 'a')).toBe(true);
    expect(await r.reserveSequence('eth:c', 0n, 'c')).toBe(0n);
    expect(await r.reserveSequence('eth:c', 0n, 'd')).toBe(2n);
  });

  it('drops released numbers the chain has passed', async () => {
    await r.reserveSequence('eth:d', 0n, 'a');
    await r.reserveSequence('eth:d', 0n, 'b');
    await r.releaseSequence('eth:d', 0n, 'a');
    expect(await r.reserveSequence('eth:d', 1n, 'c')).toBe(2n);
  });

  it('keeps int64 sequences exact (Stellar sequence numbers exceed 2^53)', async () => {
    const start = 9_007_199_254_740_993n * 1000n + 999n;
    expect(await r.reserveSequence('xlm:e', start, 'a')).toBe(start);
    expect(await r.reserveSequence('xlm:e', start, 'b')).toBe(start + 1n);
  });

  it('claims items all-or-nothing and releases only its own', async () => {
    expect(await r.claim('btc', ['t:0', 't:1'], 'op1', 60_000)).toBe(true);
    expect(await r.claim('btc', ['t:1', 't:2'], 'op2', 60_000)).toBe(false);
    expect(await r.claimedBy('btc', ['t:0', 't:1', 't:2'])).toEqual(['op1', 'op1', null]);
    expect(await r.release('btc', ['t:0', 't:1'], 'op2')).toBe(0);
    expect(await r.release('btc', ['t:0', 't:1'], 'op1')).toBe(2);
    expect(await r.claim('btc', ['t:1', 't:2'], 'op2', 60_000)).toBe(true);
  });
});

describe('what reservations report (the reservation_events metric)', () => {
  const { redis, prefix } = testRedis();
  const events: [ReservationEvent, string][] = [];
  const r = new Reservations(redis, prefix, (kind, scope) => events.push([kind, scope]));
  afterAll(() => redis.disconnect());
  const taking = async (take: () => Promise<unknown>) => {
    events.length = 0;
    await take();
    return [...events];
  };

  it('a number taken back from the free list, by either kind of reservation, and never a new one', async () => {
    const spend = { balances: { ETH: 10n }, minedBelow: 0n, spend: { ETH: 1n } };
    expect(await taking(() => r.reserveSequence('eth:ev', 0n, 'a'))).toEqual([]);
    expect(await taking(() => r.reserveSequenceWithin('eth:ev', 0n, 'b', spend))).toEqual([]);
    await r.releaseSequence('eth:ev', 0n, 'a');
    await r.releaseSequence('eth:ev', 1n, 'b');
    expect(await taking(() => r.reserveSequence('eth:ev', 0n, 'c'))).toEqual([['sequence_refill', 'eth:ev']]);
    expect(await taking(() => r.reserveSequenceWithin('eth:ev', 0n, 'd', spend))).toEqual([['sequence_refill', 'eth:ev']]);
    expect(await taking(() => r.reserveSequence('eth:ev', 0n, 'e'))).toEqual([]);
  });

  it('a coin claim lost to another owner, and not one won', async () => {
    expect(await taking(() => r.claim('btc:ev', ['t:0'], 'op1', 60_000))).toEqual([]);
    expect(await taking(() => r.claim('btc:ev', ['t:0'], 'op1', 60_000))).toEqual([]);
    expect(await taking(() => r.claim('btc:ev', ['t:0', 't:1'], 'op2', 60_000))).toEqual([['utxo_claim_conflict', 'btc:ev']]);
  });
});

describe('empty lists', () => {
  // A client whose connection is closed: any command it is asked rejects.
  const closed = new Redis('redis://127.0.0.1:1', { lazyConnect: true });
  closed.disconnect();
  const r = new Reservations(closed, 'test:');

  it('ask nothing of Redis (HDEL and MGET refuse no keys; claiming or releasing no coins is done already)', async () => {
    await expect(r.settleSequences('eth:none', [])).resolves.toBeUndefined();
    expect(await r.claimedBy('btc:none', [])).toEqual([]);
    expect(await r.claim('btc:none', [], 'op', 60_000)).toBe(true);
    expect(await r.release('btc:none', [], 'op')).toBe(0);
    await expect(r.claimedBy('btc:none', ['t:0'])).rejects.toThrow('Connection is closed');
  });
});

describe('minReservationMs', () => {
  it('is the signing timeout plus an hour for the broadcast, in milliseconds', () => {
    expect(minReservationMs(0)).toBe(3_600_000);
    expect(minReservationMs(900)).toBe(4_500_000);
  });
});

/**
 * A creation that fails after its craft reserved a number (Redis error on the store and on the
 * release it then tries, or the API process killed) leaves an owner that no withdrawal will ever
 * release. Past the grace period the next reservation of the account takes the number back.
 */
describe('numbers held by a withdrawal that was never stored', () => {
  const { redis, prefix } = testRedis();
  const GRACE_MS = 60_000;
  const r = new Reservations(redis, prefix, undefined, GRACE_MS);
  const pastGrace = (scope: string) => ageReservations(redis, prefix, scope, GRACE_MS + 1);
  const store = (withdrawalId: string, status = 'EXECUTING') => redis.set(operationKeys(prefix).operation(withdrawalId), JSON.stringify({ status }));
  afterAll(() => redis.disconnect());

  it('stay held within the grace period: the withdrawal may be being created right now', async () => {
    expect(await r.reserveSequence('eth:o1', 0n, 'being-created')).toBe(0n);
    expect(await r.reserveSequence('eth:o1', 0n, 'next')).toBe(1n);
    expect(await r.releaseSequence('eth:o1', 0n, 'being-created')).toBe(true);
  });

  it('past the grace period go to the next reservation, which the account was waiting for', async () => {
    expect(await r.reserveSequence('eth:o2', 0n, 'orphan')).toBe(0n);
    await pastGrace('eth:o2');
    expect(await r.reserveSequence('eth:o2', 0n, 'next')).toBe(0n);
    expect(await r.releaseSequence('eth:o2', 0n, 'orphan')).toBe(false);
    expect(await r.reserveSequence('eth:o2', 0n, 'after')).toBe(1n);
  });

  it('are kept by an owner whose withdrawal is stored, past the grace period too', async () => {
    await store('stored-op');
    expect(await r.reserveSequence('eth:o3', 0n, 'stored-op')).toBe(0n);
    await pastGrace('eth:o3');
    expect(await r.reserveSequence('eth:o3', 0n, 'next')).toBe(1n);
    expect(await r.reserveSequence('eth:o3', 0n, 'after')).toBe(2n);
    expect(await r.releaseSequence('eth:o3', 0n, 'stored-op')).toBe(true);
  });

  it('held by a withdrawal that ended FAILED before it was sent, its release lost, go to the next reservation past the grace period', async () => {
    await store('failed-op', 'FAILED');
    expect(await r.reserveSequence('eth:o7', 0n, 'failed-op')).toBe(0n);
    await pastGrace('eth:o7');
    expect(await r.reserveSequence('eth:o7', 0n, 'next')).toBe(0n);
    // Stored and live when first looked at, FAILED later with its release lost: taken back one grace period later.
    await store('live-then-failed');
    expect(await r.reserveSequence('eth:o8', 0n, 'live-then-failed')).toBe(0n);
    await pastGrace('eth:o8');
    expect(await r.reserveSequence('eth:o8', 0n, 'second')).toBe(1n);
    await store('live-then-failed', 'FAILED');
    await pastGrace('eth:o8');
    expect(await r.reserveSequence('eth:o8', 0n, 'third')).toBe(0n);
  });

  it('stop counting against the balance once taken back, wherever they are in the sequence', async () => {
    const spend = (eth: bigint) => ({ balances: { ETH: 10n }, minedBelow: 0n, spend: { ETH: eth } });
    await store('stored-op-2');
    expect(await r.reserveSequenceWithin('eth:o4', 0n, 'stored-op-2', spend(1n))).toEqual({ ok: true, n: 0n });
    expect(await r.reserveSequenceWithin('eth:o4', 0n, 'orphan', spend(6n))).toEqual({ ok: true, n: 1n });
    expect(await r.reserveSequenceWithin('eth:o4', 0n, 'too-much', spend(6n))).toEqual({ ok: false, reason: 'short', asset: 'ETH', pending: 7n });
    await pastGrace('eth:o4');
    expect(await r.reserveSequenceWithin('eth:o4', 0n, 'now-fits', spend(6n))).toEqual({ ok: true, n: 1n });
    expect(await r.releaseSequence('eth:o4', 1n, 'orphan')).toBe(false);
  });

  it('reserved by a version that did not record since when, get their grace period from when they are found', async () => {
    const { owners, last } = reservationKeys(prefix).sequence('eth:o5');
    await redis.hset(owners, '0'.padStart(20, '0'), 'reserved-by-an-older-version');
    await redis.set(last, '0'.padStart(20, '0'));
    expect(await r.reserveSequence('eth:o5', 0n, 'next')).toBe(1n);
    await pastGrace('eth:o5');
    expect(await r.reserveSequence('eth:o5', 0n, 'after')).toBe(0n);
  });

  it('whose since-when is not a time (a marker of an earlier version) are handled as unrecorded, not as a script error', async () => {
    expect(await r.reserveSequence('eth:o9', 5n, 'op-a')).toBe(5n);
    await redis.hset(reservationKeys(prefix).sequence('eth:o9').owners, `${'5'.padStart(20, '0')}:since`, 'stored');
    expect(await r.reserveSequence('eth:o9', 5n, 'op-b')).toBe(6n);
  });

  it('leave nothing in the owners hash once settled or released', async () => {
    const a = await r.reserveSequence('eth:o6', 0n, 'a');
    const b = await r.reserveSequence('eth:o6', 0n, 'b');
    await r.settleSequence('eth:o6', a);
    await r.releaseSequence('eth:o6', b, 'b');
    expect(await redis.hgetall(reservationKeys(prefix).sequence('eth:o6').owners)).toEqual({});
  });
});
