import type { Redis } from 'ioredis';
import type { LedgerAdaptor, UnsignedWithdrawal } from '../ledger/adaptor.js';
import { sendOrderKey } from '../redis-keys.js';

/**
 * Sending in order. On ledgers where an account's transactions carry consecutive numbers
 * (Ethereum nonce, Stellar sequence), a signed transaction whose predecessor has not reached
 * the node yet must wait for it: nodes that refuse gaps (Hardhat automining, Besu, rollup
 * sequencers, every Stellar node) would reject it, and nodes that queue gaps would hold it
 * where nothing shows why. Signatures come back from the quorum in any order, so this is the
 * common case under load, not an accident.
 *
 * A waiting transaction's job is delayed, not failed, and does not use up its attempts. When
 * a transaction goes out, the one waiting at the next number is woken at once (the book
 * below); otherwise each waiting job looks again after a growing delay of at most a few seconds.
 * Ready means: this service sent the predecessor, or the node's next number has reached ours.
 */

/** The broadcast of `sequence` waits: the node takes `next` first. */
export class PredecessorPending extends Error {
  constructor(
    readonly account: string,
    readonly sequence: bigint,
    readonly next: bigint,
  ) {
    super(`waiting for ${account}'s transaction ${next}, which is not out yet (this one is ${sequence})`);
    this.name = 'PredecessorPending';
  }
}

/** How long a waiting broadcast sleeps before it looks again, after `waits` earlier looks. */
export function waitDelayMs(waits: number): number {
  return Math.min(5_000, 200 * 2 ** Math.min(Math.max(waits, 0), 5));
}

const pad = (n: bigint): string => n.toString().padStart(20, '0');

// Sequences are int64 (Stellar), past what a Lua number holds: compared as padded strings.
const RECORD_SENT = `
local successor = redis.call('HGET', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[3])
local last = redis.call('HGET', KEYS[1], 'lastSent')
if not last or ARGV[1] > last then redis.call('HSET', KEYS[1], 'lastSent', ARGV[1]) end
redis.call('EXPIRE', KEYS[1], ARGV[4])
return successor
`;

/**
 * Per account: who waits at which number, so the broadcast of number n can wake the one at
 * n + 1 without it polling, and the highest number this service has sent, so a successor can
 * go without asking a node whose pending count lags (load-balanced providers). Lost entries
 * cost only latency: waiting jobs look again anyway.
 */
export class SendOrderBook {
  private static readonly TTL_SECONDS = 7 * 86_400;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(ledgerId: string, account: string): string {
    return sendOrderKey(this.prefix, ledgerId, account);
  }

  async waiting(ledgerId: string, account: string, sequence: bigint, operationId: string): Promise<void> {
    const key = this.key(ledgerId, account);
    await this.redis.multi().hset(key, sequence.toString(), operationId).expire(key, SendOrderBook.TTL_SECONDS).exec();
  }

  /** Records that `sequence` went out; returns the operation waiting at the next number, if any. */
  async sent(ledgerId: string, account: string, sequence: bigint): Promise<string | undefined> {
    const key = this.key(ledgerId, account);
    const successor = (await this.redis.eval(
      RECORD_SENT,
      1,
      key,
      pad(sequence),
      (sequence + 1n).toString(),
      sequence.toString(),
      String(SendOrderBook.TTL_SECONDS),
    )) as string | null;
    return successor ?? undefined;
  }

  /** Whether this service has sent a transaction of the account at `sequence` or later. */
  async sentUpTo(ledgerId: string, account: string, sequence: bigint): Promise<boolean> {
    const last = await this.redis.hget(this.key(ledgerId, account), 'lastSent');
    return last !== null && last >= pad(sequence);
  }
}

/**
 * Throws PredecessorPending when the node's next number for the sending account is below this
 * transaction's. A number below the node's next goes out as usual: the adaptor tells our own
 * transaction already in from a number taken by another. When the node cannot be asked, the
 * broadcast itself decides: it fails the same way (node down, retried), or the node answers
 * "nonce too high", which waits too.
 */
export async function checkSendOrder(
  adaptor: LedgerAdaptor,
  unsigned: UnsignedWithdrawal,
  onLookupError: (e: unknown) => void = () => undefined,
  book?: SendOrderBook,
): Promise<{ account: string; sequence: bigint } | undefined> {
  const order = adaptor.sendOrder?.(unsigned);
  if (!order || !adaptor.nextSequence) return order;
  // Our own predecessor went out: no need to ask the node (nor to trust a lagging count).
  if (book && (await book.sentUpTo(adaptor.ledgerId, order.account, order.sequence - 1n))) return order;
  let next: bigint;
  try {
    next = await adaptor.nextSequence(order.account);
  } catch (e) {
    onLookupError(e);
    return order;
  }
  if (order.sequence > next) throw new PredecessorPending(order.account, order.sequence, next);
  return order;
}
