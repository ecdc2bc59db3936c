import { createHash, randomUUID } from 'node:crypto';
import { luaScript } from '../../platform/redis-script.js';
import type { Redis } from 'ioredis';
import { ConflictError, InvalidArgumentError } from '../../platform/errors.js';
import type { Operation } from '../model/operation.js';
import { idempotencyKey } from '../../platform/redis-keys.js';

const KEY = /^[\w.:-]{1,128}$/;
const TTL_SECONDS = 24 * 60 * 60;
/**
 * How long a claim protects a request still running (IDEMPOTENCY_CLAIM_SECONDS). A withdrawal
 * request is bounded by the back end's and the custody client's own timeouts and retries
 * (about a minute at worst); past this a claim without a result belongs to a request that
 * died, and a retry may take it.
 */
export const DEFAULT_CLAIM_SECONDS = 120;

interface Entry {
  hash: string;
  /** The internal id the claiming request gives its withdrawal, fixed before it is made. */
  id: string;
  /** Epoch ms after which the claim no longer protects an unfinished request. */
  until: number;
  /** Set by the store in the step that stores the withdrawal; the request still runs (its sign request). */
  stored?: boolean;
  /**
   * The withdrawal id, set once the request answered with its withdrawal. Stored under this
   * name (records outlive a release); read and written through `answered` and `answer` only.
   */
  operationId?: string;
}

/** The withdrawal a finished request answered with (the stored field keeps its first name). */
const answered = (entry: Partial<Entry>): string | undefined => entry.operationId;
const answer = (withdrawalId: string): Pick<Entry, 'operationId'> => ({ operationId: withdrawalId });

/**
 * What the request that holds a key's claim passes to the store: the store makes the withdrawal
 * only while the key still reads `held`, and sets it to `done` in the same step (operation-store.ts).
 */
export interface IdempotencyClaim {
  key: string;
  held: string;
  done: string;
}

/**
 * Compare-and-replace of a key's record, the one write that must not overwrite another
 * request's claim: a takeover (expected: the stale claim read), the finish and the release of
 * this request's own claim (expected: its claim, or its claim marked stored).
 */
const REPLACE_IF = luaScript(
  {
    keys: ['record'],
    args: ['the expected record', "a second one ('' for none)", "the new record ('' to delete it)", 'its ttl s'],
    returns: '1 replaced, 0 when the record is neither',
  },
  `
local v = redis.call('GET', KEYS[1])
if v ~= ARGV[1] and (ARGV[2] == '' or v ~= ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4]) end
return 1
`,
);

/**
 * `Idempotency-Key` for withdrawals: a client that retries a POST after a timeout gets the
 * withdrawal it already made instead of a second one. Keys live 24 h per vault; a key reused
 * with another body is a 409, and so is a retry while the first request is still running.
 * A request that died (process killed, Redis lost mid-way) blocks its key only until its
 * claim runs out; the retry then finds the withdrawal the dead request made, by the id that
 * request had fixed in its claim, or makes it. A request that is only slow (a back end that
 * answers late) and finishes after its claim was taken over makes nothing: the store makes a
 * withdrawal only under a claim the request still holds, and marks the claim stored in the same
 * step, so a retry cannot take it over unseen; the claim names the withdrawal once the request
 * has answered with it.
 */
export class Idempotency {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** Looks a withdrawal up by internal id (the operation store). */
    private readonly findOperation: (id: string) => Promise<Operation | undefined>,
    private readonly claimSeconds = DEFAULT_CLAIM_SECONDS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `create` once per (vault, key) with the id the withdrawal must get. Returns that id,
   * or the id a previous request with the same key and body produced.
   */
  async run(vaultId: string, key: string | undefined, body: unknown, create: (id: string, claim?: IdempotencyClaim) => Promise<string>): Promise<string> {
    if (key === undefined) return create(randomUUID());
    if (!KEY.test(key)) throw new InvalidArgumentError('Idempotency-Key must be 1-128 letters, digits, or . _ : -');
    const redisKey = idempotencyKey(this.prefix, vaultId, key);
    const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    const mine: Entry = { hash, id: randomUUID(), until: this.now() + this.claimSeconds * 1000 };
    const claimed = await this.redis.set(redisKey, JSON.stringify(mine), 'EX', TTL_SECONDS, 'NX');
    if (claimed !== 'OK' && !(await this.takeOverStale(redisKey, hash, mine))) {
      const raw = await this.redis.get(redisKey);
      const entry = JSON.parse(raw ?? '{}') as Partial<Entry>;
      const known = answered(entry);
      if (known) return known;
      // The claim changed hands between our reads: the new owner is running now.
      throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly', 'ERR_IDEMPOTENCY_IN_PROGRESS');
    }
    return this.createUnderClaim(redisKey, mine, create);
  }

  /**
   * Decides about an existing claim: a finished one answers, a foreign body is refused, a live
   * one is in progress, and a stale one is taken over unless the dead request's withdrawal exists.
   */
  private async takeOverStale(redisKey: string, hash: string, mine: Entry): Promise<boolean> {
    // A takeover refused because the record changed meanwhile (the late request stored its
    // withdrawal between our look and our takeover) is decided once more on what it is now.
    for (let look = 0; look < 2; look++) {
      const raw = await this.redis.get(redisKey);
      if (raw === null) return (await this.redis.set(redisKey, JSON.stringify(mine), 'EX', TTL_SECONDS, 'NX')) === 'OK';
      const entry = JSON.parse(raw) as Partial<Entry>;
      if (entry.hash !== hash) throw new ConflictError('This Idempotency-Key was used with a different request', 'ERR_IDEMPOTENCY_MISMATCH');
      if (answered(entry)) return false;
      // Stored or not, a request within its claim is still running (its sign request may yet fail).
      if (entry.until === undefined || this.now() < entry.until) {
        throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly', 'ERR_IDEMPOTENCY_IN_PROGRESS');
      }
      const made = entry.id ? await this.findOperation(entry.id) : undefined;
      // A withdrawal the custody service took (it has an operationID) or that got anywhere is the answer.
      if (made && (made.operationID || made.status !== 'FAILED')) {
        await this.redis.set(redisKey, JSON.stringify({ ...entry, ...answer(made.id) }), 'EX', TTL_SECONDS);
        return false;
      }
      if (await this.replaceIf(redisKey, [raw], JSON.stringify(mine))) return true;
    }
    return false;
  }

  /** Sets `next` (undefined: deletes) only while the record is one of `expected`; whether it did. */
  private async replaceIf(redisKey: string, expected: [string, string?], next: string | undefined): Promise<boolean> {
    const [first, second = ''] = expected;
    return (await REPLACE_IF.run(this.redis, [redisKey], [first, second, next ?? '', TTL_SECONDS])) === 1;
  }

  private async createUnderClaim(redisKey: string, mine: Entry, create: (id: string, claim: IdempotencyClaim) => Promise<string>): Promise<string> {
    const claim = { key: redisKey, held: JSON.stringify(mine), done: JSON.stringify({ ...mine, stored: true } satisfies Entry) };
    let withdrawalId: string;
    try {
      withdrawalId = await create(mine.id, claim);
    } catch (e) {
      // Nothing was accepted (a withdrawal whose sign request failed ended FAILED): the client may
      // retry with the same key. If this delete is lost (Redis blip), the claim still runs out at
      // `until`. A claim a retry took over is not ours to delete.
      await this.replaceIf(redisKey, [claim.held, claim.done], undefined).catch(() => undefined);
      throw e;
    }
    await this.replaceIf(redisKey, [claim.held, claim.done], JSON.stringify({ ...mine, ...answer(withdrawalId) } satisfies Entry));
    return withdrawalId;
  }
}
