import { afterAll, describe, expect, it, vi } from 'vitest';
import { PredecessorPending, SendOrderBook, SenderBusy, waitDelayMs } from '../../src/withdrawals/sending/send-order.js';
import { testRedis } from '../helpers/redis.js';

/** The account's book of ready transactions and its send lock, on the real Redis (the sender itself: test/pipeline/account-sender.test.ts). */
describe('send-order book', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());

  it('one job of an account holds the send lock; the others only record themselves as ready', async () => {
    const book = new SendOrderBook(redis, prefix);
    expect(await book.readyAndTryLock('ethdev', '0xAbC', 4n, 'op-4', 'token-a')).toEqual({ locked: true });
    // Accounts compare case-insensitively (EIP-55 and lower case are one account).
    expect(await book.readyAndTryLock('ethdev', '0xabc', 5n, 'op-5', 'token-b')).toEqual({ locked: false });
    // Another ledger, another account: another lock.
    expect((await book.readyAndTryLock('ethtest', '0xabc', 5n, 'op-x', 'token-c')).locked).toBe(true);
    expect(await book.readyRun('ethdev', '0xABC', 4n, 10)).toEqual([
      { sequence: 4n, withdrawalId: 'op-4' },
      { sequence: 5n, withdrawalId: 'op-5' },
    ]);
    // Another token can neither record under the lock nor release it.
    expect(await book.recordSent('ethdev', '0xabc', 4n, 'op-4', 'token-b')).toBe(false);
    expect(await book.releaseOrContinue('ethdev', '0xabc', 'token-b', 5n)).toBe('lost');
    expect(await book.recordSent('ethdev', '0xabc', 4n, 'op-4', 'token-a')).toBe(true);
    expect(await book.lastSent('ethdev', '0xabc')).toBe(4n);
    expect(await book.readyRun('ethdev', '0xabc', 4n, 10)).toEqual([]);
  });

  it('records a run of sends in one step: the highest number, only the entries still theirs, and only under the lock', async () => {
    const book = new SendOrderBook(redis, prefix);
    expect((await book.readyAndTryLock('ethdev', '0xRun', 10n, 'op-10', 'holder')).locked).toBe(true);
    for (const [n, id] of [
      [11n, 'op-11'],
      [12n, 'op-12'],
      [13n, 'op-13'],
    ] as const)
      await book.readyAndTryLock('ethdev', '0xrun', n, id, 'other');
    // 12's entry is another operation's now (its first one failed and the number was refilled).
    await book.forget('ethdev', '0xrun', 12n, 'op-12');
    await book.readyAndTryLock('ethdev', '0xrun', 12n, 'op-12b', 'other');
    const run = [10n, 11n, 12n].map((sequence) => ({ sequence, withdrawalId: `op-${sequence}` }));
    expect(await book.recordSentMany('ethdev', '0xrun', run, 'other')).toBe(false);
    expect(await book.recordSentMany('ethdev', '0xrun', run, 'holder')).toBe(true);
    expect(await book.lastSent('ethdev', '0xrun')).toBe(12n);
    // 10 and 11 are out of the book; 12 is another operation's, so it stays.
    expect(await book.readyRun('ethdev', '0xrun', 10n, 10)).toEqual([]);
    expect(await book.readyRun('ethdev', '0xrun', 12n, 10)).toEqual([
      { sequence: 12n, withdrawalId: 'op-12b' },
      { sequence: 13n, withdrawalId: 'op-13' },
    ]);
    // A run below the last number sent does not move it back.
    expect(await book.recordSentMany('ethdev', '0xrun', [{ sequence: 3n, withdrawalId: 'op-3' }], 'holder')).toBe(true);
    expect(await book.lastSent('ethdev', '0xrun')).toBe(12n);
  });

  it('keeps the lock while a transaction is ready at the next number and releases it in the same step otherwise', async () => {
    const book = new SendOrderBook(redis, prefix);
    expect((await book.readyAndTryLock('ethdev', '0xDef', 0n, 'op-0', 'holder')).locked).toBe(true);
    await book.recordSent('ethdev', '0xdef', 0n, 'op-0', 'holder');
    // A job ready at 1 while the holder works: it finds the lock taken, and the holder sees it.
    expect((await book.readyAndTryLock('ethdev', '0xdef', 1n, 'op-1', 'late')).locked).toBe(false);
    expect(await book.releaseOrContinue('ethdev', '0xdef', 'holder', 1n)).toBe('continue');
    await book.recordSent('ethdev', '0xdef', 1n, 'op-1', 'holder');
    expect(await book.releaseOrContinue('ethdev', '0xdef', 'holder', 2n)).toBe('released');
    // Released: the next job takes the lock, and learns the last number sent.
    expect(await book.readyAndTryLock('ethdev', '0xdef', 3n, 'op-3', 'next')).toEqual({ locked: true, lastSent: 1n });
  });

  it('lets the lock of a holder that stopped renewing it expire', async () => {
    const book = new SendOrderBook(redis, prefix);
    expect((await book.readyAndTryLock('ethdev', '0x123', 0n, 'op-0', 'dead')).locked).toBe(true);
    expect(await book.extend('ethdev', '0x123', 'dead')).toBe(true);
    expect(await book.extend('ethdev', '0x123', 'other')).toBe(false);
    const lock = `${prefix}send-lock:{ethdev:0x123}`;
    await redis.pexpire(lock, 1);
    await vi.waitUntil(async () => (await redis.exists(lock)) === 0, { timeout: 10_000, interval: 5 });
    expect((await book.readyAndTryLock('ethdev', '0x123', 0n, 'op-0', 'alive')).locked).toBe(true);
    expect(await book.extend('ethdev', '0x123', 'dead')).toBe(false);
  });

  it('compares numbers exactly past 2^53 (Stellar sequences are int64) and forgets only its own entry', async () => {
    const book = new SendOrderBook(redis, prefix);
    const big = 4183103229378561n;
    await book.readyAndTryLock('stellardev', 'GABC', big, 'op-big', 't');
    await book.recordSent('stellardev', 'GABC', big, 'op-big', 't');
    await book.recordSent('stellardev', 'GABC', big - 10n, 'op-older', 't');
    expect(await book.lastSent('stellardev', 'GABC')).toBe(big);
    await book.readyAndTryLock('stellardev', 'GABC', big + 1n, 'op-next', 't2');
    await book.forget('stellardev', 'GABC', big + 1n, 'op-other');
    expect(await book.readyRun('stellardev', 'GABC', big + 1n, 3)).toEqual([{ sequence: big + 1n, withdrawalId: 'op-next' }]);
    await book.forget('stellardev', 'GABC', big + 1n, 'op-next');
    expect(await book.readyRun('stellardev', 'GABC', big + 1n, 3)).toEqual([]);
  });

  it('looks again late after a first wait (the holder sends it), then soon after a dead holder lost its lock, at most every 10 s', () => {
    expect(waitDelayMs(0)).toBe(10_000);
    expect(waitDelayMs(1)).toBe(SendOrderBook.LOCK_MS);
    expect(waitDelayMs(2)).toBeGreaterThan(waitDelayMs(1));
    expect(waitDelayMs(50)).toBe(10_000);
  });

  it('doubles the later looks from the lock time up to 10 s', () => {
    expect([-1, 0, 1, 2, 3, 6, 7].map(waitDelayMs)).toEqual([10_000, 10_000, 3_000, 6_000, 10_000, 10_000, 10_000]);
  });

  it('keeps the highest number sent when it gains a digit, and never moves it back', async () => {
    const book = new SendOrderBook(redis, prefix);
    expect(await book.lastSent('ethdev', '0xDigits')).toBeUndefined();
    await book.readyAndTryLock('ethdev', '0xdigits', 9n, 'op-9', 'holder');
    await book.recordSent('ethdev', '0xdigits', 9n, 'op-9', 'holder');
    await book.recordSent('ethdev', '0xdigits', 10n, 'op-10', 'holder');
    expect(await book.lastSent('ethdev', '0xdigits')).toBe(10n);
    await book.recordSentMany(
      'ethdev',
      '0xdigits',
      [99n, 100n].map((sequence) => ({ sequence, withdrawalId: `op-${sequence}` })),
      'holder',
    );
    expect(await book.lastSent('ethdev', '0xdigits')).toBe(100n);
    await book.recordSent('ethdev', '0xdigits', 98n, 'op-98', 'holder');
    expect(await book.lastSent('ethdev', '0xdigits')).toBe(100n);
  });

  it('records the highest number of a run given in any order', async () => {
    const book = new SendOrderBook(redis, prefix);
    await book.readyAndTryLock('ethdev', '0xAnyOrder', 20n, 'op-20', 'holder');
    const run = [21n, 22n, 20n].map((sequence) => ({ sequence, withdrawalId: `op-${sequence}` }));
    expect(await book.recordSentMany('ethdev', '0xanyorder', run, 'holder')).toBe(true);
    expect(await book.lastSent('ethdev', '0xanyorder')).toBe(22n);
  });

  it('says in its waits which transaction is waited for, and for which', () => {
    const pending = new PredecessorPending('0xabc', 5n, 4n);
    expect([pending.name, pending.message]).toEqual(['PredecessorPending', "waiting for 0xabc's transaction 4, which is not out yet (this one is 5)"]);
    const busy = new SenderBusy('0xabc', 5n);
    expect([busy.name, busy.message]).toEqual(['SenderBusy', "0xabc's transactions are being sent by another job, which sends this one (5) in its turn"]);
  });

  it('releases the lock only for its holder', async () => {
    const book = new SendOrderBook(redis, prefix);
    expect((await book.readyAndTryLock('ethdev', '0xRel', 0n, 'op-0', 'holder')).locked).toBe(true);
    await book.release('ethdev', '0xrel', 'other');
    expect((await book.readyAndTryLock('ethdev', '0xrel', 1n, 'op-1', 'other')).locked).toBe(false);
    await book.release('ethdev', '0xrel', 'holder');
    expect((await book.readyAndTryLock('ethdev', '0xrel', 1n, 'op-1', 'other')).locked).toBe(true);
  });
});
