import type { Logger } from 'pino';
import type { Reservations } from './reservations.js';

/**
 * "Reserve, build, release on failure", written once for every family's craft.
 *
 * A craft holds what must not be used twice (an Ethereum nonce, a Stellar sequence number, a
 * Solana durable nonce, Bitcoin coins) before it builds the transaction. When a later
 * reservation or the build throws, everything already held is given back, and the error the
 * caller sees is always the one that stopped the craft: a release that fails too is logged
 * and attached to that error (`releaseFailures`), never thrown in its place. A reservation
 * that cannot be given back is not held for good: a claim expires, and a sequence number is
 * taken back by the account's next reservation after a grace period (reservations.ts); the
 * original error is what tells the client why the withdrawal was refused.
 */

/** One thing a craft holds: how to take it, and how to give back what was taken. */
export interface Reservation<T> {
  /** What is held, for the log line when giving it back fails: `nonce of ethtest:0xab…`. */
  label: string;
  /** Takes the reservation; throws (a typed error) when it cannot be had. */
  take(): Promise<T>;
  /** Gives back what `take` returned. */
  release(held: T): Promise<unknown>;
}

/** Something already taken, with the way to give it back. */
export interface HeldReservation {
  label: string;
  release(): Promise<unknown>;
}

type Taken<R extends readonly Reservation<unknown>[]> = { [K in keyof R]: R[K] extends Reservation<infer T> ? T : never };

const RELEASE_FAILURES = Symbol('releaseFailures');

/** Releases that failed while a craft was being undone, attached to the error that undid it. */
export function releaseFailures(error: unknown): unknown[] {
  return (error as { [RELEASE_FAILURES]?: unknown[] } | null)?.[RELEASE_FAILURES] ?? [];
}

/** Tries every release in `held`, in order; returns the failures, each logged with `why`. */
async function releaseEach(logger: Logger, held: readonly HeldReservation[], why: string, context: Record<string, unknown>): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (const h of held) {
    try {
      await h.release();
    } catch (e) {
      failures.push(e);
      logger.warn({ err: e, reservation: h.label, ...context }, why);
    }
  }
  return failures;
}

/** Attaches `failures` to `error` (not enumerable: its rendered body and log line stay as they were). */
function attach(error: unknown, failures: unknown[]): void {
  if (failures.length > 0 && typeof error === 'object' && error !== null) {
    Object.defineProperty(error, RELEASE_FAILURES, { value: [...releaseFailures(error), ...failures], configurable: true });
  }
}

/** Gives everything back, last taken first; every release is tried, failures are logged and attached to `cause`. */
async function undo(logger: Logger, held: readonly HeldReservation[], cause: unknown): Promise<void> {
  const why = 'could not release a reservation after a failed craft; it stays held until it expires or is taken back';
  attach(cause, await releaseEach(logger, [...held].reverse(), why, { cause }));
}

/**
 * An adaptor's `release` when a withdrawal holds more than one thing (a Stellar sequence number
 * and the account it creates): every one is given back even when an earlier one fails, then the
 * first failure is thrown (every failure logged, the later ones attached to it as
 * `releaseFailures`): one release failing never keeps the others held.
 */
export async function releaseAll(logger: Logger, held: readonly HeldReservation[]): Promise<void> {
  const failures = await releaseEach(logger, held, 'could not release a reservation of an ended withdrawal', {});
  if (failures.length === 0) return;
  const [first, ...rest] = failures;
  attach(first, rest);
  throw first;
}

/**
 * Builds with reservations already taken (`held`); when the build throws, gives them all back
 * and rethrows the build's error.
 */
export async function buildOrRelease<B>(logger: Logger, held: readonly HeldReservation[], build: () => B | Promise<B>): Promise<B> {
  try {
    return await build();
  } catch (e) {
    await undo(logger, held, e);
    throw e;
  }
}

/**
 * Takes `reservations` in order, then builds with what they returned. When a reservation or
 * the build throws, whatever was taken is given back and that error is rethrown.
 */
export async function reserveAndBuild<const R extends readonly Reservation<unknown>[], B>(
  logger: Logger,
  reservations: R,
  build: (taken: Taken<R>) => B | Promise<B>,
): Promise<B> {
  const held: HeldReservation[] = [];
  const taken: unknown[] = [];
  for (const r of reservations) {
    let value: unknown;
    try {
      value = await r.take();
    } catch (e) {
      await undo(logger, held, e);
      throw e;
    }
    taken.push(value);
    held.push({ label: r.label, release: () => r.release(value) });
  }
  return buildOrRelease(logger, held, () => build(taken as Taken<R>));
}

/** The next number of an account's sequence (nonce, Stellar sequence) at least `chainNext`, for `owner`. */
export function sequenceReservation(reservations: Reservations, scope: string, chainNext: () => Promise<bigint>, owner: string): Reservation<bigint> {
  return {
    label: `sequence of ${scope}`,
    take: async () => reservations.reserveSequence(scope, await chainNext(), owner),
    release: (n) => reservations.releaseSequence(scope, n, owner),
  };
}

/** All of `items` for `owner` for `ttlMs`, or the error `taken()` builds when another owner holds any of them. */
export function claimReservation(
  reservations: Reservations,
  scope: string,
  items: string[],
  owner: string,
  ttlMs: number,
  taken: () => Error,
): Reservation<string[]> {
  return {
    label: `${items.join(', ')} in ${scope}`,
    take: async () => {
      if (!(await reservations.claim(scope, items, owner, ttlMs))) throw taken();
      return items;
    },
    release: (held) => reservations.release(scope, held, owner),
  };
}
