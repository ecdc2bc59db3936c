import { afterAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors.js';
import { Idempotency } from '../../src/pipeline/idempotency.js';
import type { Operation } from '../../src/pipeline/operation.js';
import { testRedis } from '../helpers/redis.js';

/** Idempotency-Key claims on the real Redis, with a clock the test moves. */
describe('Idempotency-Key claims', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());
  let clock = 1_000_000;
  const made = new Map<string, Operation>();
  const idem = new Idempotency(redis, prefix, async (id) => made.get(id), 60, () => clock);
  const body = { amount: '1', recipientAddress: 'x' };
  const conflictCode = (p: Promise<unknown>) => p.then(() => 'none', (e: unknown) => (e instanceof ConflictError ? e.errCode : String(e)));

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
    void idem.run('v2', 'k-dead', body, () => new Promise<string>(() => undefined));
    await new Promise((r) => setTimeout(r, 50));
    expect(await conflictCode(idem.run('v2', 'k-dead', body, async (id) => id))).toBe('ERR_IDEMPOTENCY_IN_PROGRESS');
    clock += 61_000;
    const id = await idem.run('v2', 'k-dead', body, async (i) => i);
    expect(await idem.run('v2', 'k-dead', body, async () => 'another')).toBe(id);
  });

  it('a retry after a dead request that had made the withdrawal answers that withdrawal, not a second one', async () => {
    let dead = '';
    void idem.run('v3', 'k-made', body, (id) => {
      dead = id;
      made.set(id, { id, operationID: 'custody-op-1', status: 'EXECUTING' } as Operation);
      return new Promise<string>(() => undefined);
    });
    await new Promise((r) => setTimeout(r, 50));
    clock += 61_000;
    let calls = 0;
    expect(await idem.run('v3', 'k-made', body, async (id) => (calls++, id))).toBe(dead);
    expect(calls).toBe(0);
  });

  it('two retries of a stale claim at once: one takes it over, the other is told it is in progress', async () => {
    void idem.run('v4', 'k-race', body, () => new Promise<string>(() => undefined));
    await new Promise((r) => setTimeout(r, 50));
    clock += 61_000;
    let calls = 0;
    const create = async (id: string) => {
      calls++;
      await new Promise((r) => setTimeout(r, 50));
      return id;
    };
    const results = await Promise.all([idem.run('v4', 'k-race', body, create).catch(() => 'conflict'), idem.run('v4', 'k-race', body, create).catch(() => 'conflict')]);
    expect(calls).toBe(1);
    expect(results.filter((r) => r === 'conflict')).toHaveLength(1);
  });
});
