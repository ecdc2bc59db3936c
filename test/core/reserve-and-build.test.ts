import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidArgumentError, UnavailableError } from '../../src/platform/errors.js';
import {
  buildOrRelease,
  claimReservation,
  releaseAll,
  releaseFailures,
  reserveAndBuild,
  sequenceReservation,
  type Reservation,
} from '../../src/ledger/reserve-and-build.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { testRedis } from '../helpers/redis.js';

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

/** A reservation that takes fine but whose release fails (Redis gone between the two). */
function unreleasable(label: string): Reservation<string> {
  return {
    label,
    take: async () => label,
    release: async () => {
      throw new UnavailableError(`cannot release ${label}`);
    },
  };
}

describe('reserve, build, release on failure', () => {
  const { redis, prefix } = testRedis();
  const r = new Reservations(redis, prefix);
  afterAll(() => redis.disconnect());
  const claim = (items: string[], owner: string) =>
    claimReservation(r, 'coins', items, owner, 60_000, () => new ConflictError(`${items.join(', ')} are taken`));

  it('passes what each reservation took to the build, in order, and keeps it held', async () => {
    const { logger } = capturedLogger();
    const built = await reserveAndBuild(
      logger,
      [sequenceReservation(r, 'acct:a', async () => 7n, 'op1'), claim(['a:0', 'a:1'], 'op1')],
      ([n, items]) => `${n}:${items.join('+')}`,
    );
    expect(built).toBe('7:a:0+a:1');
    expect(await r.claimedBy('coins', ['a:0', 'a:1'])).toEqual(['op1', 'op1']);
    expect(await r.reserveSequence('acct:a', 0n, 'op2')).toBe(8n);
  });

  it('a build that throws gives back everything and its own error reaches the caller', async () => {
    const { logger, lines } = capturedLogger();
    const refused = new InvalidArgumentError('the recipient is not valid');
    const outcome = reserveAndBuild(logger, [sequenceReservation(r, 'acct:b', async () => 3n, 'op1'), claim(['b:0'], 'op1')], () => {
      throw refused;
    });
    await expect(outcome).rejects.toBe(refused);
    expect(await r.claimedBy('coins', ['b:0'])).toEqual([null]);
    // The released number is handed out again before a new one.
    expect(await r.reserveSequence('acct:b', 0n, 'op2')).toBe(3n);
    expect(lines).toEqual([]);
    expect(releaseFailures(refused)).toEqual([]);
  });

  it('a reservation that cannot be had gives back the ones taken before it, and nothing after it is taken', async () => {
    const { logger } = capturedLogger();
    await r.claim('coins', ['c:1'], 'other', 60_000);
    let builds = 0;
    let seqTaken = false;
    const later: Reservation<bigint> = { label: 'later', take: async () => ((seqTaken = true), 1n), release: async () => undefined };
    const outcome = reserveAndBuild(logger, [claim(['c:0'], 'op1'), claim(['c:1'], 'op1'), later], () => builds++);
    await expect(outcome).rejects.toThrow(ConflictError);
    await expect(outcome).rejects.toThrow('c:1 are taken');
    expect(await r.claimedBy('coins', ['c:0', 'c:1'])).toEqual([null, 'other']);
    expect(builds).toBe(0);
    expect(seqTaken).toBe(false);
  });

  it('a release that fails too is logged and attached, never thrown in place of the original error; the others are still released', async () => {
    const { logger, lines } = capturedLogger();
    const refused = new InvalidArgumentError('amount below the dust threshold');
    const outcome = reserveAndBuild(logger, [claim(['d:0'], 'op1'), unreleasable('nonce 5 of acct:d'), claim(['d:1'], 'op1')], () => {
      throw refused;
    });
    await expect(outcome).rejects.toBe(refused);
    expect(await r.claimedBy('coins', ['d:0', 'd:1'])).toEqual([null, null]);
    const failures = releaseFailures(refused);
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toContain('cannot release nonce 5 of acct:d');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, reservation: 'nonce 5 of acct:d' });
    // Not part of the error's body: clients see the original refusal only.
    expect(refused.toBody()).toEqual(new InvalidArgumentError('amount below the dust threshold').toBody());
  });

  it('buildOrRelease undoes reservations taken outside it, last first', async () => {
    const { logger } = capturedLogger();
    const order: string[] = [];
    const held = ['first', 'second'].map((label) => ({ label, release: async () => void order.push(label) }));
    const boom = new Error('build failed');
    await expect(buildOrRelease(logger, held, async () => Promise.reject(boom))).rejects.toBe(boom);
    expect(order).toEqual(['second', 'first']);
    expect(await buildOrRelease(logger, held, () => 'ok')).toBe('ok');
    expect(order).toEqual(['second', 'first']);
  });

  it('releaseAll gives back everything even when an earlier release fails, then throws the first failure with the others attached', async () => {
    const { logger, lines } = capturedLogger();
    await r.claim('coins', ['e:0', 'e:1'], 'op1', 60_000);
    const fails = (label: string) => ({ label, release: () => unreleasable(label).release(label) });
    const gives = (item: string) => ({ label: item, release: () => r.release('coins', [item], 'op1') });
    let caught: unknown;
    try {
      await releaseAll(logger, [fails('sequence 9 of acct:e'), gives('e:0'), fails('creation of G in acct'), gives('e:1')]);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(UnavailableError);
    expect((caught as Error).message).toContain('cannot release sequence 9 of acct:e');
    expect(releaseFailures(caught).map((e) => (e as Error).message)).toEqual([expect.stringContaining('cannot release creation of G in acct')]);
    expect(await r.claimedBy('coins', ['e:0', 'e:1'])).toEqual([null, null]);
    expect(lines.map((l) => l.reservation)).toEqual(['sequence 9 of acct:e', 'creation of G in acct']);
    await expect(releaseAll(logger, [gives('e:0')])).resolves.toBeUndefined();
  });
});
