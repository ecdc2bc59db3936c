import { afterAll, describe, expect, it } from 'vitest';
import { CustodyNotFoundError, CustodyRequestError } from '../../src/custody/errors.js';
import { UnavailableError } from '../../src/platform/errors.js';
import { processReconcile } from '../../src/withdrawals/jobs/reconcile-job.js';
import { key, payload } from '../helpers/operation-kit.js';
import { reconcileHarness, signOperation, waitingOperation } from './reconcile-support.js';

/** Created just past SIGN_TIMEOUT_SECONDS (86,400 s in the harness). */
const pastTimeout = () => new Date(Date.now() - 86_400_000 - 5_000);

/**
 * SIGN_TIMEOUT_SECONDS ends only withdrawals the quorum has not signed: reconciliation asks the
 * custody service first, and fails on the timeout only when it answers that the sign operation
 * is still unsigned. A custody service that cannot answer leaves the withdrawal EXECUTING with
 * its reservations until it can.
 */
describe('the sign timeout and the custody service', () => {
  const h = reconcileHarness();
  afterAll(() => h.cleanup());

  /** Where a withdrawal stands after a run: status, failure reason, reservations given back. */
  const state = async (id: string) => {
    const op = await h.store.get(id);
    return { status: op.status, reason: op.failureReason, released: h.released.includes(id) };
  };

  it('a withdrawal the quorum signed, its callback lost, is completed past the timeout, not failed', async () => {
    const k = key();
    const payloads = [payload(k, 0)];
    const op = waitingOperation(payloads, 'signed-late', pastTimeout());
    await h.store.create(op);
    h.custody.answer = async (id) => signOperation(id, 'COMPLETED', { payloads, key: k });
    const tally = await processReconcile(h.deps);
    expect(await state(op.id)).toEqual({ status: 'EXECUTING', reason: undefined, released: false });
    expect(h.added.map((a) => a.jobId)).toContain(`broadcast-${op.id}`);
    expect(tally).toMatchObject({ recovered: 1, failed: 0 });
    await h.store.transition(op.id, ['EXECUTING'], 'SIGNED');
    await h.store.transition(op.id, ['SIGNED'], 'BROADCAST');
  });

  it('a signed one whose lookup carries no signatures has its callback asked for again past the timeout, not failed', async () => {
    const op = waitingOperation([payload(key(), 0)], 'signed-no-sigs', pastTimeout());
    await h.store.create(op);
    h.custody.answer = async (id) => signOperation(id, 'COMPLETED');
    await processReconcile(h.deps);
    expect(await state(op.id)).toEqual({ status: 'EXECUTING', reason: undefined, released: false });
    expect(h.resends).toContain('signed-no-sigs');
    await h.store.transition(op.id, ['EXECUTING'], 'BROADCAST');
  });

  it('one the custody service reports still unsigned past the timeout is canceled there, then ends FAILED and gives its reservations back; a younger one waits on', async () => {
    const op = waitingOperation([payload(key(), 0)], 'unsigned', pastTimeout());
    const young = waitingOperation([payload(key(), 0)], 'young', new Date(Date.now() - 10 * 60_000));
    await h.store.create(op);
    await h.store.create(young);
    h.custody.answer = async (id) => signOperation(id, 'PENDING');
    const from = h.lookups.length;
    await processReconcile(h.deps);
    expect(h.lookups.slice(from).sort()).toEqual(['unsigned', 'young']);
    expect(h.cancels).toEqual(['unsigned']);
    expect(await state(op.id)).toEqual({
      status: 'FAILED',
      reason: 'not signed within 86400 s (SIGN_TIMEOUT_SECONDS); canceled at the custody service',
      released: true,
    });
    expect(await state(young.id)).toEqual({ status: 'EXECUTING', reason: undefined, released: false });
    await h.store.transition(young.id, ['EXECUTING'], 'BROADCAST');
  });

  it('one held by a policy rule at the custody service past the timeout ends FAILED with the rule in its reason', async () => {
    const op = waitingOperation([payload(key(), 0)], 'held', pastTimeout());
    await h.store.create(op);
    const held = 'Held by policy rule weeklyTimeSlots: outside the weekly time slots (MON-FRI 09:00-18:00, UTC); the next slot opens 2026-11-30T09:00:00.000Z';
    h.custody.answer = async (id) => ({ ...signOperation(id, 'PENDING'), statusText: held });
    await processReconcile(h.deps);
    expect(await state(op.id)).toEqual({
      status: 'FAILED',
      reason: `not signed within 86400 s (SIGN_TIMEOUT_SECONDS): sign operation PENDING at the custody service (${held}); canceled at the custody service`,
      released: true,
    });
  });

  it('one the custody service cannot answer for stays EXECUTING with its reservations past the timeout, and ends FAILED once it answers unsigned', async () => {
    const op = waitingOperation([payload(key(), 0)], 'unreachable', pastTimeout());
    await h.store.create(op);
    h.custody.answer = async () => {
      throw new UnavailableError('custody GET /operations/sign/{id} failed after 4 attempts: ECONNREFUSED');
    };
    for (let run = 0; run < 3; run++) await processReconcile(h.deps);
    expect(await state(op.id)).toEqual({ status: 'EXECUTING', reason: undefined, released: false });
    h.custody.answer = async (id) => signOperation(id, 'PENDING');
    await processReconcile(h.deps);
    expect(await state(op.id)).toEqual({
      status: 'FAILED',
      reason: 'not signed within 86400 s (SIGN_TIMEOUT_SECONDS); canceled at the custody service',
      released: true,
    });
  });

  it('past the timeout, a cancel the custody service cannot make keeps it EXECUTING; one refused because the quorum signed meanwhile completes it', async () => {
    const k = key();
    const payloads = [payload(k, 0)];
    const op = waitingOperation(payloads, 'cancel-fails', pastTimeout());
    await h.store.create(op);
    h.custody.answer = async (id) => signOperation(id, 'PENDING');
    h.custody.cancel = async () => {
      throw new UnavailableError('custody POST /operations/{id}/cancel failed after 4 attempts: ECONNREFUSED');
    };
    await processReconcile(h.deps);
    expect(await state(op.id)).toEqual({ status: 'EXECUTING', reason: undefined, released: false });

    // The quorum signs while the cancel is on its way: the service refuses the cancel (409) and the signatures are taken.
    h.custody.cancel = async (id) => {
      h.custody.answer = async () => signOperation(id, 'COMPLETED', { payloads, key: k });
      throw new CustodyRequestError({ operation: 'POST /operations/{id}/cancel', upstreamStatus: 409, upstreamTitle: 'Conflict' });
    };
    await processReconcile(h.deps);
    expect(await state(op.id)).toEqual({ status: 'EXECUTING', reason: undefined, released: false });
    expect(h.added.map((a) => a.jobId)).toContain(`broadcast-${op.id}`);
    await h.store.transition(op.id, ['EXECUTING'], 'BROADCAST');
  });

  it('past the timeout, a sign operation the custody service does not know has nothing left to cancel: FAILED', async () => {
    const op = waitingOperation([payload(key(), 0)], 'unknown-there', pastTimeout());
    await h.store.create(op);
    h.custody.answer = async (id) => signOperation(id, 'PENDING');
    h.custody.cancel = async () => {
      throw new CustodyNotFoundError({ operation: 'POST /operations/{id}/cancel', upstreamStatus: 404 });
    };
    await processReconcile(h.deps);
    expect((await state(op.id)).status).toBe('FAILED');
    h.custody.cancel = async () => {};
  });
});
