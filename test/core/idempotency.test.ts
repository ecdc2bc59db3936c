import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError, ConflictError } from '../../src/platform/errors.js';
import { idempotencyKey } from '../../src/platform/redis-keys.js';
import { Idempotency, type IdempotencyClaim } from '../../src/withdrawals/store/idempotency.js';
import type { Operation } from '../../src/withdrawals/model/operation.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { key, operation, payload } from '../helpers/operation-kit.js';
import { testRedis } from '../helpers/redis.js';

/** A signal a request's create gives once it has run so far (its claim is taken by then), for the test to wait on. */
function signal(): { give: () => void; given: Promise<void> } {
  let give!: () => void;
  const given = new Promise<void>((r) => (give = r));
  return { give, given };
}

/** Idempotency-Key claims on the real Redis, with a clock the test moves. */
describe('Idempotency-Key claims', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());
  let clock = 1_000_000;
  const made = new Map<string, Operation>();
  const idem = new Idempotency(
    redis,
    prefix,
    async (id) => made.get(id),
    60,
    () => clock,
  );
  const body = { amount: '1', recipientAddress: 'x' };
  const conflictCode = (p: Promise<unknown>) =>
    p.then(
      () => 'none',
      (e: unknown) => (e instanceof ConflictError ? e.errCode : String(e)),
    );

  it('runs create once for concurrent requests with one key; the others are told it is in progress', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const create = async (id: string) => {
      calls++;
      await gate;
      return id;
    };
    const first = idem.run('v1', 'k-concurrent', body, create);
    const others = await Promise.all(Array.from({ length: 5 }, () => conflictCode(idem.run('v1', 'k-concurrent', body, create))));
    expect(others).toEqual(Array(5).fill('ERR_IDEMPOTENCY_IN_PROGRESS'));
    release();
    const id = await first;
    expect(calls).toBe(1);
    expect(await idem.run('v1', 'k-concurrent', body, create)).toBe(id);
    expect(await conflictCode(idem.run('v1', 'k-concurrent', { ...body, amount: '2' }, create))).toBe('ERR_IDEMPOTENCY_MISMATCH');
  });

  it('frees the key at once when create fails, so a retry makes the withdrawal', async () => {
    await expect(idem.run('v1', 'k-fail', body, async () => Promise.reject(new Error('custody down')))).rejects.toThrow('custody down');
    expect(await idem.run('v1', 'k-fail', body, async (id) => id)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a claim left by a request that died before making anything blocks only until it runs out', async () => {
    // A request that claims and never finishes: its process died.
    const claimed = signal();
    void idem.run('v2', 'k-dead', body, () => (claimed.give(), new Promise<string>(() => undefined)));
    await claimed.given;
    expect(await conflictCode(idem.run('v2', 'k-dead', body, async (id) => id))).toBe('ERR_IDEMPOTENCY_IN_PROGRESS');
    clock += 61_000;
    const id = await idem.run('v2', 'k-dead', body, async (i) => i);
    expect(await idem.run('v2', 'k-dead', body, async () => 'another')).toBe(id);
  });

  it('a retry after a dead request that had made the withdrawal answers that withdrawal, not a second one', async () => {
    let dead = '';
    const madeIt = signal();
    void idem.run('v3', 'k-made', body, (id) => {
      dead = id;
      made.set(id, { id, operationID: 'custody-op-1', status: 'EXECUTING' } as Operation);
      madeIt.give();
      return new Promise<string>(() => undefined);
    });
    await madeIt.given;
    clock += 61_000;
    let calls = 0;
    expect(await idem.run('v3', 'k-made', body, async (id) => (calls++, id))).toBe(dead);
    expect(calls).toBe(0);
  });

  it('two retries of a stale claim at once: one takes it over, the other is told it is in progress', async () => {
    const claimed = signal();
    void idem.run('v4', 'k-race', body, () => (claimed.give(), new Promise<string>(() => undefined)));
    await claimed.given;
    clock += 61_000;
    let calls = 0;
    // The one that takes the claim over holds it until the other has answered (or creates too).
    const answered = signal();
    const create = async (id: string) => {
      if (++calls > 1) answered.give();
      await answered.given;
      return id;
    };
    const runs = [idem.run('v4', 'k-race', body, create).catch(() => 'conflict'), idem.run('v4', 'k-race', body, create).catch(() => 'conflict')];
    void Promise.race(runs).then(answered.give);
    const results = await Promise.all(runs);
    expect(calls).toBe(1);
    expect(results.filter((r) => r === 'conflict')).toHaveLength(1);
  });
});

/**
 * A request that is only slow (a back end that answers late) outlives its claim, a retry takes
 * the key over, then the slow one reaches the store: it must not make a second withdrawal,
 * whichever of the two reaches the store first.
 */
describe('Idempotency-Key claims against the operation store', () => {
  const { redis, prefix } = testRedis();
  const store = new OperationStore(redis, prefix);
  afterAll(() => redis.disconnect());
  let clock = 5_000_000;
  /** Runs between the retry's look for the slow request's withdrawal and its takeover. */
  let between: (() => Promise<void>) | undefined;
  const idem = new Idempotency(
    redis,
    prefix,
    async (id) => {
      const found = await store.find(id);
      await between?.();
      return found;
    },
    60,
    () => clock,
  );
  const body = { amount: '1', recipientAddress: 'x' };
  const signer = key();
  /** What createWithdrawal does with the claim: store the withdrawal under it. */
  const storing = async (id: string, claim?: IdempotencyClaim) => {
    await store.create(operation([payload(signer, 0)], { id }), claim);
    return id;
  };
  const stored = async (ids: string[]) => (await Promise.all(ids.map((id) => store.find(id)))).filter(Boolean).map((op) => op!.id);

  it('the slow request reaches the store after a retry took its claim over: it makes nothing, and is told so', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let slowId = '';
    const claimed = signal();
    const slow = idem.run('v1', 'k-slow', body, async (id, claim) => {
      slowId = id;
      claimed.give();
      await gate;
      return storing(id, claim);
    });
    await claimed.given;
    clock += 61_000;
    const retried = await idem.run('v1', 'k-slow', body, storing);
    expect(retried).not.toBe(slowId);
    release();
    const err = await slow.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).errCode).toBe('ERR_IDEMPOTENCY_TAKEN_OVER');
    expect(await stored([slowId, retried])).toEqual([retried]);
    expect(await idem.run('v1', 'k-slow', body, storing)).toBe(retried);
  });

  it("the slow request stores between the retry's look and its takeover: the retry answers that withdrawal, not a second one", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let finish!: () => void;
    const finishing = new Promise<void>((r) => (finish = r));
    let isStored!: () => void;
    const storedNow = new Promise<void>((r) => (isStored = r));
    let slowId = '';
    // Stored, but its request has not yet written the withdrawal's id into the claim itself.
    const claimed = signal();
    const slow = idem.run('v1', 'k-between', body, async (id, claim) => {
      slowId = id;
      claimed.give();
      await gate;
      await storing(id, claim);
      isStored();
      await finishing;
      return id;
    });
    await claimed.given;
    clock += 61_000;
    between = async () => {
      between = undefined;
      release();
      await storedNow;
    };
    let calls = 0;
    const retried = await idem
      .run('v1', 'k-between', body, async (id, claim) => {
        calls++;
        return storing(id, claim);
      })
      .catch((e: unknown) => (e instanceof ConflictError ? e.errCode : e));
    finish();
    expect(await slow).toBe(slowId);
    expect(calls).toBe(0);
    expect(retried).toBe(slowId);
    expect(await idem.run('v1', 'k-between', body, storing)).toBe(slowId);
  });

  it('a retry while the first request waits for its sign request is told it is in progress; when that fails, the retry makes the one withdrawal the key answers', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let first = '';
    const storedIt = signal();
    const slow = idem.run('v1', 'k-signing', body, async (id, claim) => {
      first = await storing(id, claim);
      storedIt.give();
      await gate; // the sign request is on its way
      throw new Error('the custody service did not accept the sign request');
    });
    await storedIt.given;
    expect(await stored([first])).toEqual([first]);
    const during = await idem.run('v1', 'k-signing', body, storing).catch((e: unknown) => (e instanceof ConflictError ? e.errCode : e));
    expect(during).toBe('ERR_IDEMPOTENCY_IN_PROGRESS');
    release();
    await expect(slow).rejects.toThrow(/did not accept/);
    const retried = await idem.run('v1', 'k-signing', body, storing);
    expect(retried).not.toBe(first);
    expect(await idem.run('v1', 'k-signing', body, storing)).toBe(retried);
  });

  it('a request that died after storing, its withdrawal since failed: once the claim runs out a retry makes a new one', async () => {
    let dead = '';
    const storedIt = signal();
    void idem.run('v1', 'k-died', body, async (id, claim) => {
      dead = await storing(id, claim);
      storedIt.give();
      return new Promise<string>(() => undefined);
    });
    await storedIt.given;
    // Reconciliation ends it: its sign request never reached the custody service.
    await store.transition(dead, ['EXECUTING'], 'FAILED', () => ({ failureReason: 'the sign request never reached the custody service' }));
    clock += 61_000;
    const retried = await idem.run('v1', 'k-died', body, storing);
    expect(retried).not.toBe(dead);
    expect((await store.get(retried)).status).toBe('EXECUTING');
  });

  it('a key whose record vanished before the store (a failover) makes nothing: 503, retry with the same key', async () => {
    const err = await idem
      .run('v1', 'k-vanished', body, async (id, claim) => {
        await redis.del(claim!.key);
        return storing(id, claim);
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, errCode: 'ERR_IDEMPOTENCY_LOST' });
    expect(await idem.run('v1', 'k-vanished', body, storing)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a withdrawal stored under a claim whose request then failed frees the key for a retry', async () => {
    const failedId = await idem
      .run('v1', 'k-failed', body, async (id, claim) => {
        await storing(id, claim);
        throw new Error(`sign request refused for ${id}`);
      })
      .catch((e: unknown) => (e as Error).message.split(' ').pop());
    const retried = await idem.run('v1', 'k-failed', body, storing);
    expect(retried).not.toBe(failedId);
  });
});

/** The key's rules, its lifetimes, and the moments its record changes between a request's reads. */
describe('Idempotency-Key limits', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());
  let clock = 9_000_000;
  const body = { amount: '1', recipientAddress: 'x' };
  const refusal = (p: Promise<unknown>) =>
    p.then(
      (v) => ({ answered: v }),
      (e: unknown) => (e instanceof AppError ? { status: e.status, errCode: e.errCode, details: e.details } : { thrown: String(e) }),
    );
  const IN_PROGRESS = {
    status: 409,
    errCode: 'ERR_IDEMPOTENCY_IN_PROGRESS',
    details: 'A request with this Idempotency-Key is still being processed; retry shortly',
  };
  /** The store under test: nothing to look up, 60 s claims, the test's clock. */
  const limited = () =>
    new Idempotency(
      redis,
      prefix,
      async () => undefined,
      60,
      () => clock,
    );
  /** A request that claims its key and never finishes (its process died). */
  const dead = async (idem: Idempotency, vault: string, key: string) => {
    const claimed = signal();
    void idem.run(vault, key, body, () => (claimed.give(), new Promise<string>(() => undefined)));
    await claimed.given;
  };

  it('refuses a key that is not 1 to 128 letters, digits or . _ : - with a 422, before claiming anything', async () => {
    const idem = limited();
    let calls = 0;
    const create = async (id: string) => (calls++, id);
    for (const key of ['bad key', 'key!', 'clé', '', 'a'.repeat(129)]) {
      expect(await refusal(idem.run('v1', key, body, create)), key).toEqual({
        status: 422,
        errCode: 'ERR_INVALID_ARGUMENTS',
        details: 'Idempotency-Key must be 1-128 letters, digits, or . _ : -',
      });
    }
    expect(calls).toBe(0);
    for (const key of ['A-z_0.9:x', 'a'.repeat(128)]) expect(await idem.run('v1', key, body, create)).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls).toBe(2);
  });

  it('remembers a key for 24 hours', async () => {
    const idem = limited();
    await idem.run('v1', 'k-day', body, async (id) => id);
    expect(await redis.ttl(idempotencyKey(prefix, 'v1', 'k-day'))).toBeGreaterThan(24 * 3600 - 60);
  });

  it('a claim protects its request for its whole claim time and no longer; a different body is refused all along', async () => {
    const idem = limited();
    await dead(idem, 'v1', 'k-edge');
    clock += 59_999;
    expect(await refusal(idem.run('v1', 'k-edge', body, async (id) => id))).toEqual(IN_PROGRESS);
    expect(await refusal(idem.run('v1', 'k-edge', { ...body, amount: '2' }, async (id) => id))).toEqual({
      status: 409,
      errCode: 'ERR_IDEMPOTENCY_MISMATCH',
      details: 'This Idempotency-Key was used with a different request',
    });
    clock += 1;
    const id = await idem.run('v1', 'k-edge', body, async (i) => i);
    expect(await idem.run('v1', 'k-edge', body, async () => 'another')).toBe(id);
  });

  it('a record that runs out between the refused claim and the look is claimed then, and answers the retries after', async () => {
    const key = idempotencyKey(prefix, 'v1', 'k-expired');
    // The dead request's record expires right after it refused the next request's claim.
    let expireOnce = true;
    const expiring = new Proxy(redis, {
      get(target, name) {
        if (name === 'set') {
          return async (...args: Parameters<Redis['set']>) => {
            const r = await (target.set as (...a: unknown[]) => Promise<unknown>)(...args);
            if (r === null && args[0] === key && expireOnce) {
              expireOnce = false;
              await target.del(key);
            }
            return r;
          };
        }
        const v: unknown = Reflect.get(target, name, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const idem = new Idempotency(
      expiring,
      prefix,
      async () => undefined,
      60,
      () => clock,
    );
    await dead(idem, 'v1', 'k-expired');
    let calls = 0;
    const id = await idem.run('v1', 'k-expired', body, async (i) => (calls++, i));
    expect(expireOnce).toBe(false);
    expect(await idem.run('v1', 'k-expired', body, async (i) => (calls++, i))).toBe(id);
    expect(calls).toBe(1);
  });

  it('a stale claim that changes hands under each of two takeovers is not taken: the retry is told it is in progress', async () => {
    const key = idempotencyKey(prefix, 'v1', 'k-churn');
    // Each look for the dead request's withdrawal ends with another dead request's stale claim in its place.
    let changes = 0;
    const idem = new Idempotency(
      redis,
      prefix,
      async () => {
        if (changes < 2) {
          changes++;
          const entry = JSON.parse((await redis.get(key)) ?? '{}') as Record<string, unknown>;
          await redis.set(key, JSON.stringify({ ...entry, id: randomUUID() }));
        }
        return undefined;
      },
      60,
      () => clock,
    );
    await dead(idem, 'v1', 'k-churn');
    clock += 61_000;
    let calls = 0;
    expect(await refusal(idem.run('v1', 'k-churn', body, async (id) => (calls++, id)))).toEqual(IN_PROGRESS);
    expect(changes).toBe(2);
    expect(calls).toBe(0);
    // Left alone, the stale claim is taken over by the next retry.
    expect(await idem.run('v1', 'k-churn', body, async (id) => (calls++, id))).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls).toBe(1);
  });
});
