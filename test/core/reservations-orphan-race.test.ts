import { afterAll, describe, expect, it } from 'vitest';
import { Reservations } from '../../src/ledger/reservations.js';
import { operationKeys, reservationKeys } from '../../src/platform/redis-keys.js';
import { testRedis } from '../helpers/redis.js';
import { ageReservations } from '../helpers/reservation-clock.js';

describe('taking back an orphaned number while reservations run at once', () => {
  const { redis, prefix } = testRedis();
  const GRACE = 60_000;
  const r = new Reservations(redis, prefix, undefined, GRACE);
  afterAll(() => redis.disconnect());

  it('concurrent reservations after an orphan never hand out one number twice', async () => {
    const scope = 'eth:race';
    await r.reserveSequence(scope, 0n, 'orphan');
    for (let i = 1; i <= 5; i++) {
      await redis.set(operationKeys(prefix).operation(`live${i}`), '{}');
      await r.reserveSequence(scope, 0n, `live${i}`);
    }
    await ageReservations(redis, prefix, scope, GRACE + 1);
    const got = await Promise.all(Array.from({ length: 20 }, (_, i) => r.reserveSequence(scope, 0n, `new${i}`)));
    expect(new Set(got.map(String)).size).toBe(20);
    expect(got.map(String)).toContain('0');
    const owners = await redis.hgetall(reservationKeys(prefix).sequence(scope).owners);
    for (const n of Object.keys(owners).filter((k) => !k.endsWith(':since'))) expect(owners[`${n}:since`]).toBeDefined();
    for (const k of Object.keys(owners).filter((k) => k.endsWith(':since'))) expect(owners[k.slice(0, 20)]).toBeDefined();
    // live owners are kept
    for (let i = 1; i <= 5; i++) expect(owners[String(i).padStart(20, '0')]).toBe(`live${i}`);
  });

  it('spend check with overdueAll: orphan spend freed, live kept, no duplicates', async () => {
    const scope = 'eth:race2';
    const spend = (eth: bigint) => ({ balances: { ETH: 10n }, minedBelow: 0n, spend: { ETH: eth } });
    await redis.set(operationKeys(prefix).operation('L'), '{}');
    expect(await r.reserveSequenceWithin(scope, 0n, 'L', spend(3n))).toEqual({ ok: true, n: 0n });
    expect(await r.reserveSequenceWithin(scope, 0n, 'O', spend(6n))).toEqual({ ok: true, n: 1n });
    await ageReservations(redis, prefix, scope, GRACE + 1);
    const res = await Promise.all([r.reserveSequenceWithin(scope, 0n, 'A', spend(6n)), r.reserveSequenceWithin(scope, 0n, 'B', spend(6n))]);
    const ok = res.filter((x) => x.ok);
    expect(ok.length).toBe(1);
  });
});
