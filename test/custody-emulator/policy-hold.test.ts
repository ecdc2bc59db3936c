import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { testRedis } from '../helpers/redis.js';
import { dropPrefix, expectProblem, quorumVault, startHarness, type Harness } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

// Saturday 2026-11-28 10:30 in Paris, outside the office slots; they open Monday 30th 09:00 Paris (08:00 UTC).
const SATURDAY = Date.UTC(2026, 10, 28, 9, 30);
const MONDAY_OPEN = Date.UTC(2026, 10, 30, 8, 0);
const OFFICE = { timeZone: 'Europe/Paris', rules: { weeklyTimeSlots: [{ days: 'MON-FRI', timeStart: '09:00', timeEnd: '18:00' }] } };
const HELD_TEXT =
  'Held by policy rule weeklyTimeSlots: outside the weekly time slots (MON-FRI 09:00-18:00, Europe/Paris); the next slot opens 2026-11-30T08:00:00.000Z';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const withdrawal = { recipientAddress: '0x00000000000000000000000000000000000000c1', asset: 'ETH', amount: '0.5' };

/** A sign request on the vault's key whose providerData says what it moves; answers the operation id. */
async function requestSign(h: Harness, vaultId: string, token = h.token): Promise<string> {
  const key = (await h.api('GET', `/vaults/${vaultId}/publickey`, undefined, { token })).json.publicKey as string;
  const res = await h.api(
    'POST',
    `/vaults/${vaultId}/sign`,
    { description: 'w', dataToSign: [sha256(randomBytes(32))], publicKeys: [key], ledger: 'ETH', providerData: JSON.stringify({ request: withdrawal }) },
    { token },
  );
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.operationID as string;
}

describe('a sign request outside every weekly time slot is held until one opens', () => {
  it('waits PENDING with the rule named, asks nobody, refuses answers, and goes to the approvers when the clock reaches the slot', async () => {
    const clock = { now: SATURDAY };
    const h = await startHarness({ clock });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const { vaultId, members } = await quorumVault(h, { policy: OFFICE });
    const id = await requestSign(h, vaultId);

    const held = (await h.api('GET', `/operations/sign/${id}`)).json;
    expect(held).toMatchObject({ status: 'PENDING', statusText: HELD_TEXT, isApproved: false, signatures: [] });
    expect(held.groups[0].members.map((m: { status: string }) => m.status)).toEqual(['STARTED', 'STARTED', 'STARTED']);
    expect((await h.api('GET', `/operations/${id}`)).json).toMatchObject({ kind: 'SIGN', status: 'PENDING', statusText: HELD_TEXT });
    expect((await h.device('GET', `/operations/${id}`)).json.held).toEqual({ rule: 'weeklyTimeSlots', until: '2026-11-30T08:00:00.000Z' });
    expect((await h.device('GET', `/participants/${members[0]!.id}/operations`)).json).toEqual([]);
    expectProblem(await h.device('POST', `/participants/${members[0]!.id}/operations/${id}/approve`), 409, 'operation-held');
    expectProblem(await h.device('POST', `/participants/${members[1]!.id}/operations/${id}/decline`), 409, 'operation-held');

    // A minute before the opening nothing moves; at the opening the request reaches its approvers.
    clock.now = MONDAY_OPEN - 60_000;
    // The admin's token of Saturday has long expired: a fresh one.
    const token = (await h.login()).json.access_token as string;
    expect(await h.running.emulator.ctx.holds.check()).toBe(0);
    expect((await h.api('GET', `/operations/sign/${id}`, undefined, { token })).json.statusText).toBe(HELD_TEXT);
    clock.now = MONDAY_OPEN;
    expect(await h.running.emulator.ctx.holds.check()).toBe(1);
    expect((await h.api('GET', `/operations/sign/${id}`, undefined, { token })).json).toMatchObject({ status: 'PENDING', statusText: 'Waiting for approvals' });
    expect((await h.device('GET', `/operations/${id}`)).json.held).toBeUndefined();
    expect((await h.device('GET', `/participants/${members[0]!.id}/operations`)).json.map((o: { operationID: string }) => o.operationID)).toEqual([id]);
    for (const m of members.slice(0, 2)) await h.device('POST', `/participants/${m.id}/operations/${id}/approve`);
    expect((await h.api('GET', `/operations/sign/${id}`, undefined, { token })).json.status).toBe('COMPLETED');
  });

  it('is released at the opening by the timer of the emulator, and its automatic approvers then sign', async () => {
    const clock = { now: MONDAY_OPEN - 40 };
    const h = await startHarness({ clock, approverPolicy: { approve: 'quorum', delayMs: 1 } });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const { vaultId } = await quorumVault(h, { policy: OFFICE });
    const id = await requestSign(h, vaultId);
    await h.running.emulator.settled();
    // The timer is set 40 ms ahead; it checks the clock, not the wall, when it fires.
    expect((await h.api('GET', `/operations/sign/${id}`)).json.statusText).toBe(HELD_TEXT);
    clock.now = MONDAY_OPEN;
    const deadline = Date.now() + 10_000;
    let op = (await h.api('GET', `/operations/sign/${id}`)).json;
    while (op.status !== 'COMPLETED' && Date.now() < deadline) {
      await h.running.emulator.settled();
      op = (await h.api('GET', `/operations/sign/${id}`)).json;
    }
    expect(op).toMatchObject({ status: 'COMPLETED', isApproved: true });
  });

  it('is canceled while held, and then never released', async () => {
    const clock = { now: SATURDAY };
    const h = await startHarness({ clock });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const { vaultId } = await quorumVault(h, { policy: OFFICE });
    const id = await requestSign(h, vaultId);
    expect((await h.api('POST', `/operations/${id}/cancel`)).status).toBe(200);
    const canceled = { status: 'CANCELED', statusText: 'Canceled while held by policy rule weeklyTimeSlots' };
    expect((await h.api('GET', `/operations/sign/${id}`)).json).toMatchObject(canceled);
    clock.now = MONDAY_OPEN;
    expect(await h.running.emulator.ctx.holds.check()).toBe(0);
    const token = (await h.login()).json.access_token as string;
    expect((await h.api('GET', `/operations/sign/${id}`, undefined, { token })).json).toMatchObject(canceled);
    expectProblem(await h.api('POST', `/operations/${id}/cancel`, undefined, { token }), 409, 'cannot-cancel');
  });

  it('follows a policy changed while it waits: a rule that now refuses declines it, slots removed release it', async () => {
    const h = await startHarness({ clock: { now: SATURDAY } });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const { vaultId } = await quorumVault(h, { policy: OFFICE });
    const refused = await requestSign(h, vaultId);
    const path = `/vaults/${vaultId}/policy`;
    expect((await h.device('PUT', path, { ...OFFICE, rules: { ...OFFICE.rules, amountRange: { ETH: { minimum: 0, maximum: 0.1 } } } })).status).toBe(200);
    expect((await h.api('GET', `/operations/sign/${refused}`)).json).toMatchObject({
      status: 'DECLINED',
      statusText: 'Declined by policy rule amountRange: 0.5 ETH is outside 0 … 0.1',
    });

    expect((await h.device('PUT', path, OFFICE)).status).toBe(200);
    const released = await requestSign(h, vaultId);
    expect((await h.api('GET', `/operations/sign/${released}`)).json.statusText).toBe(HELD_TEXT);
    // Saturdays too now: the held request goes to its approvers at once.
    expect((await h.device('PUT', path, { ...OFFICE, rules: { weeklyTimeSlots: [{ days: '*', timeStart: '00:00', timeEnd: '24:00' }] } })).status).toBe(200);
    expect((await h.api('GET', `/operations/sign/${released}`)).json).toMatchObject({ status: 'PENDING', statusText: 'Waiting for approvals' });
    expectProblem(await h.device('PUT', path, { rules: { weeklyTimeSlots: [{ days: 'MON', timeStart: '09:00', timeEnd: '09:00' }] } }), 400);
    expectProblem(await h.device('PUT', path, { rules: { weeklyTimeSlots: [{ days: 'MON', timeStart: '24:00', timeEnd: '09:00' }] } }), 400);
  });

  it('survives a restart: held in Redis, released by the next emulator once its slot has opened, then approved automatically', async () => {
    const { redis, prefix } = testRedis();
    cleanup.push(() => dropPrefix(redis, prefix));
    const first = await startHarness({ redis, prefix, clock: { now: SATURDAY } });
    const { vaultId } = await quorumVault(first, { policy: OFFICE });
    const id = await requestSign(first, vaultId);
    await first.stop();

    // Still Saturday: the new process keeps it held, and its automatic approvers leave it alone.
    const clock = { now: SATURDAY + 3_600_000 };
    const second = await startHarness({ redis, prefix, clock, approverPolicy: { approve: 'quorum', delayMs: 1 } });
    await second.running.emulator.settled();
    expect((await second.api('GET', `/operations/sign/${id}`)).json).toMatchObject({ status: 'PENDING', statusText: HELD_TEXT });
    await second.stop();

    const third = await startHarness({ redis, prefix, clock: { now: MONDAY_OPEN + 5 * 60_000 }, approverPolicy: { approve: 'quorum', delayMs: 1 } });
    cleanup.push(third.stop);
    await third.running.emulator.settled();
    const done = (await third.api('GET', `/operations/sign/${id}`)).json;
    expect(done).toMatchObject({ status: 'COMPLETED', statusText: 'Completed', isApproved: true });
    expect(done.signatures).toHaveLength(1);
  });
});
