import { afterAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors.js';
import type { LedgerAdaptor, UnsignedWithdrawal } from '../../src/ledger/adaptor.js';
import { checkSendOrder, PredecessorPending, SendOrderBook, waitDelayMs } from '../../src/pipeline/send-order.js';
import { testRedis } from '../helpers/redis.js';

const unsigned = (sequence: number): UnsignedWithdrawal => ({ txs: [], payloads: [], fee: 0n, state: { sequence: String(sequence) } });

/** An adaptor with only the ordering hooks, over a node whose next number is `next()`. */
function ordered(next: () => Promise<bigint>): LedgerAdaptor {
  return {
    sendOrder: (u: UnsignedWithdrawal) => ({ account: '0xAbC', sequence: BigInt((u.state as { sequence: string }).sequence) }),
    nextSequence: next,
  } as unknown as LedgerAdaptor;
}

describe('send order', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());

  it('waits while the node has not reached the number, and sends at or below it', async () => {
    const adaptor = ordered(async () => 5n);
    const waiting = await checkSendOrder(adaptor, unsigned(7)).catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(PredecessorPending);
    expect(waiting).toMatchObject({ account: '0xAbC', sequence: 7n, next: 5n });
    expect(await checkSendOrder(adaptor, unsigned(5))).toEqual({ account: '0xAbC', sequence: 5n });
    // Below the node's next: our own transaction already in, or a number taken; the adaptor tells which.
    expect(await checkSendOrder(adaptor, unsigned(3))).toEqual({ account: '0xAbC', sequence: 3n });
  });

  it('lets the broadcast decide when the node cannot be asked, and does nothing for unordered ledgers', async () => {
    const seen: unknown[] = [];
    const down = ordered(async () => {
      throw new UnavailableError('node unreachable');
    });
    expect(await checkSendOrder(down, unsigned(9), (e) => seen.push(e))).toEqual({ account: '0xAbC', sequence: 9n });
    expect(seen).toHaveLength(1);
    expect(await checkSendOrder({} as LedgerAdaptor, unsigned(1))).toBeUndefined();
  });

  it('remembers who waits at which number and names the successor once a number goes out', async () => {
    const book = new SendOrderBook(redis, prefix);
    await book.waiting('ethdev', '0xAbC', 4n, 'op-4');
    await book.waiting('ethdev', '0xAbC', 6n, 'op-6');
    // Accounts compare case-insensitively (EIP-55 and lower case are one account).
    expect(await book.sent('ethdev', '0xabc', 3n)).toBe('op-4');
    expect(await book.sent('ethdev', '0xABC', 4n)).toBeUndefined();
    expect(await book.sent('ethdev', '0xabc', 5n)).toBe('op-6');
    expect(await book.sent('ethtest', '0xabc', 5n)).toBeUndefined();
    expect(await book.sent('ethdev', '0xabc', 6n)).toBeUndefined();
    // The highest number sent, compared exactly past 2^53 (Stellar sequences are int64).
    expect(await book.sentUpTo('ethdev', '0xabc', 6n)).toBe(true);
    expect(await book.sentUpTo('ethdev', '0xabc', 7n)).toBe(false);
    const big = 4183103229378561n;
    await book.sent('stellardev', 'GABC', big);
    await book.sent('stellardev', 'GABC', big - 10n);
    expect(await book.sentUpTo('stellardev', 'GABC', big)).toBe(true);
    expect(await book.sentUpTo('stellardev', 'GABC', big + 1n)).toBe(false);
  });

  it('lets a successor go without asking the node once this service sent its predecessor', async () => {
    const book = new SendOrderBook(redis, prefix);
    let asked = 0;
    const lagging = { ...ordered(async () => (asked++, 0n)), ledgerId: 'lagdev' } as LedgerAdaptor;
    await expect(checkSendOrder(lagging, unsigned(3), undefined, book)).rejects.toBeInstanceOf(PredecessorPending);
    expect(asked).toBe(1);
    await book.sent('lagdev', '0xAbC', 2n);
    expect(await checkSendOrder(lagging, unsigned(3), undefined, book)).toEqual({ account: '0xAbC', sequence: 3n });
    expect(asked).toBe(1);
  });

  it('sleeps a little at first and at most 5 s', () => {
    expect(waitDelayMs(0)).toBe(200);
    expect(waitDelayMs(1)).toBeGreaterThan(waitDelayMs(0));
    expect(waitDelayMs(50)).toBe(5_000);
  });
});
