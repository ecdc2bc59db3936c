import { afterAll, describe, expect, it } from 'vitest';
import { Reservations } from '../../src/ledger/reservations.js';
import { testRedis } from '../helpers/redis.js';

describe('reservations in Redis', () => {
  const { redis, prefix, url } = testRedis();
  const r = new Reservations(redis, prefix);
  afterAll(() => redis.disconnect());

  it('hands out distinct consecutive numbers under concurrency, from several clients', async () => {
    const { Redis } = await import('ioredis');
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
