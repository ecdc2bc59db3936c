import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { DashboardSessions, SESSION_IDLE_SECONDS, SESSION_MAX_SECONDS } from '../../src/http/dashboard/dashboard-sessions.js';
import { testRedis } from '../helpers/redis.js';

describe('dashboard sessions in Redis', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());
  const keyOf = (token: string) => `${prefix}dashboard:session:${createHash('sha256').update(token).digest('hex')}`;

  it('stores only a digest of the token, with the idle timeout, and ends on logout', async () => {
    const sessions = new DashboardSessions(redis, prefix);
    const keySha256 = createHash('sha256').update('the admin key').digest('hex');
    const token = await sessions.create(keySha256);
    expect(await sessions.check(token)).toBe(keySha256);
    const stored = await redis.get(keyOf(token));
    expect(JSON.parse(stored as string)).toMatchObject({ keySha256 });
    expect(stored).not.toContain(token);
    const ttl = await redis.ttl(keyOf(token));
    expect(ttl).toBeGreaterThan(SESSION_IDLE_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(SESSION_IDLE_SECONDS);
    await sessions.end(token);
    expect(await sessions.check(token)).toBeUndefined();
    expect(await redis.exists(keyOf(token))).toBe(0);
  });

  it('ends a session after its maximum lifetime, however often it is used', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const sessions = new DashboardSessions(redis, prefix, () => now);
    const token = await sessions.create('ops');
    now += (SESSION_MAX_SECONDS - 10) * 1000;
    expect(await sessions.check(token)).toBe('ops');
    // The idle timeout never reaches past the maximum lifetime.
    expect(await redis.ttl(keyOf(token))).toBeLessThanOrEqual(10);
    now += 20 * 1000;
    expect(await sessions.check(token)).toBeUndefined();
    expect(await redis.exists(keyOf(token))).toBe(0);
  });

  it('ends a session stored by key name, before sessions named their key by its hash', async () => {
    const sessions = new DashboardSessions(redis, prefix);
    const token = await sessions.create('x');
    await redis.set(keyOf(token), JSON.stringify({ keyName: 'ops', createdAt: Date.now() }), 'EX', 60);
    expect(await sessions.check(token)).toBeUndefined();
  });

  it('answers nothing for tokens it never issued, of any shape', async () => {
    const sessions = new DashboardSessions(redis, prefix);
    for (const token of ['', 'x', 'a'.repeat(43), '../../etc', 'a'.repeat(10_000)]) expect(await sessions.check(token)).toBeUndefined();
  });
});
