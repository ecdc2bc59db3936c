import { afterAll, describe, expect, it } from 'vitest';
import { Reservations, type SpendCheck } from '../../src/ledger/reservations.js';
import { testRedis } from '../helpers/redis.js';

const ETH = 10n ** 18n;

describe('sequence reservations that carry a spend', () => {
  const { redis, prefix, url } = testRedis();
  const r = new Reservations(redis, prefix);
  afterAll(() => redis.disconnect());
  const check = (balance: bigint, minedBelow: bigint, spend: bigint): SpendCheck => ({ balances: { ETH: balance }, minedBelow, spend: { ETH: spend } });

  it('never promises more than the balance: 50 concurrent spends of 1 ETH from 10 ETH, from three clients, one old read', async () => {
    const { Redis } = await import('ioredis');
    const others = [new Redis(url), new Redis(url)];
    const rs = [r, ...others.map((c) => new Reservations(c, prefix))];
    // Every withdrawal read the same balance (one cached read for the block): 10 ETH, nothing mined.
    const got = await Promise.all(Array.from({ length: 50 }, (_, i) => rs[i % 3]!.reserveSequenceWithin('eth:a', 0n, `op${i}`, check(10n * ETH, 0n, ETH))));
    const ok = got.filter((g) => g.ok);
    expect(ok).toHaveLength(10);
    expect(ok.map((g) => (g.ok ? g.n : -1n)).sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i)));
    expect(got.filter((g) => !g.ok)).toEqual(Array.from({ length: 40 }, () => ({ ok: false, reason: 'short', asset: 'ETH', pending: 10n * ETH })));
    others.forEach((c) => c.disconnect());
  });

  it('a released number gives its spend back; a mined one is taken off once the read shows it mined', async () => {
    const a = await r.reserveSequenceWithin('eth:b', 0n, 'a', check(3n * ETH, 0n, 2n * ETH));
    expect(a).toEqual({ ok: true, n: 0n });
    expect(await r.reserveSequenceWithin('eth:b', 0n, 'b', check(3n * ETH, 0n, 2n * ETH))).toMatchObject({ ok: false, reason: 'short', pending: 2n * ETH });
    // Not the owner: nothing changes.
    expect(await r.releaseSequence('eth:b', 0n, 'someone')).toBe(false);
    expect(await r.reserveSequenceWithin('eth:b', 0n, 'b', check(3n * ETH, 0n, 2n * ETH))).toMatchObject({ ok: false, pending: 2n * ETH });
    expect(await r.releaseSequence('eth:b', 0n, 'a')).toBe(true);
    // The released number is handed out again, with the new spend.
    expect(await r.reserveSequenceWithin('eth:b', 0n, 'b', check(3n * ETH, 0n, 2n * ETH))).toEqual({ ok: true, n: 0n });
    await r.settleSequence('eth:b', 0n);
    // Broadcast but not mined: still counted against a read that does not show it mined.
    expect(await r.reserveSequenceWithin('eth:b', 1n, 'c', check(3n * ETH, 0n, 2n * ETH))).toMatchObject({ ok: false, pending: 2n * ETH });
    // Mined: the balance now shows the spend (1 ETH left), and the reservation no longer counts it.
    expect(await r.reserveSequenceWithin('eth:b', 1n, 'c', check(1n * ETH, 1n, ETH))).toEqual({ ok: true, n: 1n });
  });

  it('a read older than one already used is stale, since spends it does not show mined may be gone', async () => {
    expect(await r.reserveSequenceWithin('eth:c', 5n, 'a', check(10n * ETH, 5n, ETH))).toEqual({ ok: true, n: 5n });
    expect(await r.reserveSequenceWithin('eth:c', 4n, 'b', check(10n * ETH, 4n, ETH))).toEqual({ ok: false, reason: 'stale', minedBelow: 5n });
  });

  it('counts each asset on its own, and keeps amounts beyond 2^53 exact (uint256)', async () => {
    const big = 2n ** 200n + 12_345n;
    const tokenCheck = (spend: bigint): SpendCheck => ({ balances: { ETH: ETH, TKN: big }, minedBelow: 0n, spend: { ETH: 1n, TKN: spend } });
    expect(await r.reserveSequenceWithin('eth:d', 0n, 'a', tokenCheck(big - 1n))).toEqual({ ok: true, n: 0n });
    expect(await r.reserveSequenceWithin('eth:d', 0n, 'b', tokenCheck(2n))).toEqual({ ok: false, reason: 'short', asset: 'TKN', pending: big - 1n });
    expect(await r.reserveSequenceWithin('eth:d', 0n, 'b', tokenCheck(1n))).toEqual({ ok: true, n: 1n });
    // The fee asset is counted too: 2 wei of ETH promised so far.
    expect(await r.reserveSequenceWithin('eth:d', 0n, 'c', { balances: { ETH: ETH, TKN: big }, minedBelow: 0n, spend: { ETH: ETH - 1n } })).toMatchObject({
      ok: false,
      asset: 'ETH',
      pending: 2n,
    });
    expect(await r.reserveSequenceWithin('eth:d', 0n, 'c', { balances: { ETH: ETH, TKN: big }, minedBelow: 0n, spend: { ETH: ETH - 2n } })).toEqual({
      ok: true,
      n: 2n,
    });
  });

  it("a replacement raises its number's spend (either transaction may land), never lowers it, and not once mined", async () => {
    expect(await r.reserveSequenceWithin('eth:f', 0n, 'a', check(10n * ETH, 0n, 4n * ETH))).toEqual({ ok: true, n: 0n });
    await r.raiseSpend('eth:f', 0n, { ETH: 5n * ETH });
    expect(await r.reserveSequenceWithin('eth:f', 0n, 'b', check(10n * ETH, 0n, 5n * ETH + 1n))).toMatchObject({ ok: false, pending: 5n * ETH });
    await r.raiseSpend('eth:f', 0n, { ETH: ETH });
    expect(await r.reserveSequenceWithin('eth:f', 0n, 'b', check(10n * ETH, 0n, 5n * ETH))).toEqual({ ok: true, n: 1n });
    // Nonce 0 mined (the balance shows it): raising it again adds nothing.
    await r.reserveSequenceWithin('eth:f', 1n, 'c', check(5n * ETH, 1n, 0n));
    await r.raiseSpend('eth:f', 0n, { ETH: 9n * ETH });
    expect(await r.reserveSequenceWithin('eth:f', 1n, 'd', check(5n * ETH, 1n, 0n))).toEqual({ ok: true, n: 3n });
    expect(await r.reserveSequenceWithin('eth:f', 1n, 'e', check(5n * ETH, 1n, 1n))).toMatchObject({ ok: false, pending: 5n * ETH });
  });

  it('refuses a negative spend or balance before reserving anything', async () => {
    const negative = 'a spend or balance is never negative';
    await expect(r.reserveSequenceWithin('eth:g', 0n, 'a', check(10n, 0n, -1n))).rejects.toThrow(new RangeError(negative));
    await expect(r.reserveSequenceWithin('eth:g', 0n, 'a', check(-1n, 0n, 1n))).rejects.toThrow(new RangeError(negative));
    expect(await r.reserveSequenceWithin('eth:g', 0n, 'a', check(10n, 0n, 4n))).toEqual({ ok: true, n: 0n });
    await expect(r.raiseSpend('eth:g', 0n, { ETH: -1n })).rejects.toThrow(new RangeError(negative));
    expect(await r.reserveSequenceWithin('eth:g', 0n, 'b', check(10n, 0n, 7n))).toMatchObject({ ok: false, pending: 4n });
    expect(await r.reserveSequenceWithin('eth:g', 0n, 'b', check(10n, 0n, 6n))).toEqual({ ok: true, n: 1n });
  });

  it('plain reservations (no spend) go on sharing the same numbers', async () => {
    expect(await r.reserveSequenceWithin('eth:e', 0n, 'a', check(10n * ETH, 0n, ETH))).toEqual({ ok: true, n: 0n });
    expect(await r.reserveSequence('eth:e', 0n, 'b')).toBe(1n);
    expect(await r.reserveSequenceWithin('eth:e', 0n, 'c', check(10n * ETH, 0n, ETH))).toEqual({ ok: true, n: 2n });
  });
});
