import type { Redis } from 'ioredis';
import { luaScript } from '../../platform/redis-script.js';
import { sendLockKey, sendOrderKey } from '../../platform/redis-keys.js';

/**
 * Sending in order. On ledgers where an account's transactions carry consecutive numbers
 * (Ethereum nonce, Stellar sequence), a signed transaction whose predecessor has not reached
 * the node yet must wait for it: nodes that refuse gaps (Hardhat automining, Besu, rollup
 * sequencers, every Stellar node) would reject it, and nodes that queue gaps would hold it
 * where nothing shows why. Signatures come back from the quorum in any order, so this is the
 * common case under load, not an accident.
 *
 * One sender per account at a time (account-sender.ts). Each broadcast job assembles its
 * transaction (SIGNED, signed bytes stored), then in one script records itself as ready under
 * its number in the account's book and tries the account's send lock (SET NX PX with a
 * random token). The job that gets the lock sends every consecutive ready transaction from the
 * account's next number on, its own and other jobs' alike, each with the transitions a job
 * does (SIGNED → BROADCAST, the confirmation job); a heartbeat keeps the lock while it lives.
 * When no ready transaction follows, it releases the lock in the same script that looks for
 * one (a job that became ready meanwhile either found the lock free or is seen there), so no
 * wake-up is lost. A job that finds the lock taken sends nothing: it sleeps and looks again,
 * and then finds its withdrawal BROADCAST and finishes, or takes the lock itself, so a lock
 * holder that died strands nothing once its lock expires (it resends what it may have sent
 * before dying: the node answers "already known").
 *
 * The account's next number is the one after the last this service sent (kept in the book),
 * or the node's (pending nonce; sequence + 1) when the book does not know, or when a job looks
 * again after a wait (a number taken outside this service). A number below it goes out on its
 * own: the adaptor tells our own transaction already in from a number taken by another.
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

/** Another job holds the account's send lock: it sends this transaction in its turn. */
export class SenderBusy extends Error {
  constructor(
    readonly account: string,
    readonly sequence: bigint,
  ) {
    super(`${account}'s transactions are being sent by another job, which sends this one (${sequence}) in its turn`);
    this.name = 'SenderBusy';
  }
}

/**
 * How long a waiting broadcast sleeps before it looks again, after `waits` earlier looks. Only
 * a safety net: the lock holder sends a waiting transaction as soon as its predecessor is out,
 * so a job that waits on its first run looks again only once that is long past; a job that
 * already looked again (its holder may have died) looks soon after a dead holder's lock expired.
 */
export function waitDelayMs(waits: number): number {
  if (waits <= 0) return FIRST_LOOK_MS;
  return Math.min(FIRST_LOOK_MS, SendOrderBook.LOCK_MS * 2 ** Math.min(waits - 1, 5));
}

const FIRST_LOOK_MS = 10_000;

const pad = (n: bigint): string => n.toString().padStart(20, '0');

// Sequences are int64 (Stellar), past what a Lua number holds: compared as padded strings, and
// every number arithmetic is done by the caller.

const READY_AND_TRY = luaScript(
  {
    keys: ['book', 'lock'],
    args: ['sequence', 'withdrawal id', 'token', 'lock ms', 'book ttl s'],
    returns: '{locked, lastSent|false}',
  },
  `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[5])
local locked = redis.call('SET', KEYS[2], ARGV[3], 'NX', 'PX', ARGV[4])
return {locked and 1 or 0, redis.call('HGET', KEYS[1], 'lastSent') or false}
`,
);

const RECORD_SENT = luaScript(
  {
    keys: ['book', 'lock'],
    args: ['padded sequence', 'sequence', 'withdrawal id', 'token', 'lock ms'],
    returns: '1 while the lock is ours',
  },
  `
local last = redis.call('HGET', KEYS[1], 'lastSent')
if not last or ARGV[1] > last then redis.call('HSET', KEYS[1], 'lastSent', ARGV[1]) end
if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[3] then redis.call('HDEL', KEYS[1], ARGV[2]) end
if redis.call('GET', KEYS[2]) ~= ARGV[4] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
`,
);

const RECORD_SENT_MANY = luaScript(
  {
    keys: ['book', 'lock'],
    args: ['token', 'lock ms', 'highest padded sequence', '...sequence, withdrawal id'],
    returns: '1 while the lock is ours',
  },
  `
local last = redis.call('HGET', KEYS[1], 'lastSent')
if not last or ARGV[3] > last then redis.call('HSET', KEYS[1], 'lastSent', ARGV[3]) end
for i = 4, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`,
);

const RELEASE_OR_CONTINUE = luaScript(
  {
    keys: ['book', 'lock'],
    args: ['token', 'next sequence', 'lock ms'],
    returns: '1 go on (a ready one waits), 0 released, -1 not ours',
  },
  `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return 1
end
redis.call('DEL', KEYS[2])
return 0
`,
);

const EXTEND = luaScript(
  { keys: ['lock'], args: ['token', 'lock ms'], returns: '1 while the lock is ours' },
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`,
);

const RELEASE = luaScript(
  { keys: ['lock'], args: ['token'], returns: '1 released, 0 not ours' },
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
);

const FORGET = luaScript(
  { keys: ['book'], args: ['sequence', 'withdrawal id'], returns: '1 taken out, 0 not there' },
  `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
`,
);

export type ReleaseOutcome = 'continue' | 'released' | 'lost';

/**
 * Per account, in one hash: the transactions ready to go by number (number → withdrawal id) and
 * the highest number this service has sent (`lastSent`, padded), so a successor goes without
 * asking a node whose pending count lags (load-balanced providers); beside it the account's
 * send lock. Keys share the `{ledger:account}` tag (one Redis Cluster slot).
 */
export class SendOrderBook {
  private static readonly TTL_SECONDS = 7 * 86_400;
  /** The send lock's lifetime; the holder's heartbeat renews it every third of it. */
  static readonly LOCK_MS = 3_000;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keys(ledgerId: string, account: string): [string, string] {
    return [sendOrderKey(this.prefix, ledgerId, account), sendLockKey(this.prefix, ledgerId, account)];
  }

  /**
   * Records `withdrawalId` as ready to send at `sequence` and tries the account's send lock
   * with `token`; returns whether it was taken and the last number this service sent.
   */
  async readyAndTryLock(
    ledgerId: string,
    account: string,
    sequence: bigint,
    withdrawalId: string,
    token: string,
  ): Promise<{ locked: boolean; lastSent?: bigint }> {
    const [locked, last] = (await READY_AND_TRY.run(this.redis, this.keys(ledgerId, account), [
      sequence.toString(),
      withdrawalId,
      token,
      String(SendOrderBook.LOCK_MS),
      String(SendOrderBook.TTL_SECONDS),
    ])) as [number, string | null];
    return { locked: locked === 1, ...(last ? { lastSent: BigInt(last) } : {}) };
  }

  /** The ready operations at `from`, `from + 1`, … up to the first number without one (at most `max`). */
  async readyRun(ledgerId: string, account: string, from: bigint, max: number): Promise<{ sequence: bigint; withdrawalId: string }[]> {
    const seqs = Array.from({ length: max }, (_, i) => from + BigInt(i));
    const ids = await this.redis.hmget(this.keys(ledgerId, account)[0], ...seqs.map(String));
    const run: { sequence: bigint; withdrawalId: string }[] = [];
    for (const [i, id] of ids.entries()) {
      if (!id) break;
      run.push({ sequence: seqs[i] as bigint, withdrawalId: id });
    }
    return run;
  }

  /** Records that `sequence` (of `withdrawalId`) went out and renews the lock; false when the lock is no longer ours. */
  async recordSent(ledgerId: string, account: string, sequence: bigint, withdrawalId: string, token: string): Promise<boolean> {
    const r = await RECORD_SENT.run(this.redis, this.keys(ledgerId, account), [
      pad(sequence),
      sequence.toString(),
      withdrawalId,
      token,
      String(SendOrderBook.LOCK_MS),
    ]);
    return r === 1;
  }

  /** recordSent of a run of sends in one step. */
  async recordSentMany(ledgerId: string, account: string, sent: { sequence: bigint; withdrawalId: string }[], token: string): Promise<boolean> {
    const highest = sent.reduce((m, e) => (e.sequence > m ? e.sequence : m), sent[0]?.sequence ?? 0n);
    const pairs = sent.flatMap((e) => [e.sequence.toString(), e.withdrawalId]);
    return (await RECORD_SENT_MANY.run(this.redis, this.keys(ledgerId, account), [token, String(SendOrderBook.LOCK_MS), pad(highest), ...pairs])) === 1;
  }

  /** Keeps the lock when a transaction is ready at `next`, else releases it, in one step. */
  async releaseOrContinue(ledgerId: string, account: string, token: string, next: bigint): Promise<ReleaseOutcome> {
    const r = (await RELEASE_OR_CONTINUE.run(this.redis, this.keys(ledgerId, account), [token, next.toString(), String(SendOrderBook.LOCK_MS)])) as number;
    return r === 1 ? 'continue' : r === 0 ? 'released' : 'lost';
  }

  /** Renews the lock; false when it is no longer ours. */
  async extend(ledgerId: string, account: string, token: string): Promise<boolean> {
    return (await EXTEND.run(this.redis, [this.keys(ledgerId, account)[1]], [token, String(SendOrderBook.LOCK_MS)])) === 1;
  }

  async release(ledgerId: string, account: string, token: string): Promise<void> {
    await RELEASE.run(this.redis, [this.keys(ledgerId, account)[1]], [token]);
  }

  /** Takes an operation's entry out (it failed: its number is free for the one that refills it). */
  async forget(ledgerId: string, account: string, sequence: bigint, withdrawalId: string): Promise<void> {
    await FORGET.run(this.redis, [this.keys(ledgerId, account)[0]], [sequence.toString(), withdrawalId]);
  }

  /** The highest number this service sent from the account, if it knows. */
  async lastSent(ledgerId: string, account: string): Promise<bigint | undefined> {
    const last = await this.redis.hget(this.keys(ledgerId, account)[0], 'lastSent');
    return last ? BigInt(last) : undefined;
  }
}
