import { afterAll, describe, expect, it } from 'vitest';
import { NodeRejectionError } from '../../src/platform/errors.js';
import { LedgerRegistry } from '../../src/ledger/registry.js';
import type { TxStatus } from '../../src/ledger/adaptor.js';
import { attemptsOf, MAX_REFUSALS, type Operation, type Refusal, withRefusal } from '../../src/withdrawals/model/operation.js';
import { processBroadcast } from '../../src/withdrawals/jobs/broadcast-job.js';
import { watchBroadcast } from '../../src/withdrawals/sending/watch-broadcast.js';
import { invalidateIfDue } from '../../src/withdrawals/invalidate-refused.js';
import { withdrawalView } from '../../src/withdrawals/model/withdrawal-view.js';
import { fakeAdaptor, harness, key, operation, payload } from '../helpers/operation-kit.js';

/** geth's answer to a transaction whose sender has not the funds, as a node that has not imported the vault's funding yet sends it. */
const GETH_NO_FUNDS = 'insufficient funds for gas * price + value: balance 0, tx cost 1000000000000000, overshot 1000000000000000';

/**
 * Once a withdrawal is signed, a node's refusal ends it FAILED only when the refusal proves the
 * transaction can never land; any other refusal holds it open (BROADCAST, `refused`, nothing
 * released, still watched), and a conflict fails it only once its proof has the ledger's depth.
 */
describe('a refused signed withdrawal is held open until proven', () => {
  const h = harness();
  afterAll(() => h.cleanup());
  const config = { confirmPollMs: 1000, invalidateRefusedAfterSeconds: 600, stuckAfterSeconds: 600, stuckAfterBlocks: 0, resendAfterSeconds: 30 };

  /** Deps around the kit's store with an adaptor whose broadcast and txStatus the test sets. */
  function depsWith(over: { broadcast?: () => Promise<never>; txStatus?: () => Promise<TxStatus>; confirmations?: number }) {
    const adaptor = {
      ...fakeAdaptor(h.released),
      confirmations: over.confirmations ?? 1,
      broadcast: over.broadcast ?? (async () => ({ txid: 'aa', alreadyKnown: false })),
      txStatus: over.txStatus ?? (async () => ({ state: 'pending', confirmations: 0 })),
      health: async () => ({ healthy: true }),
    };
    return {
      store: h.store,
      queues: { ...h.queues, confirm: { add: async (_n: string, _d: unknown, o: { jobId: string }) => h.added.push({ queue: 'confirm', jobId: o.jobId }) } },
      registry: new LedgerRegistry([adaptor as never]),
      logger: h.logger,
      config,
    } as never;
  }

  /** A SIGNED withdrawal whose signed bytes are stored, as the broadcast job finds it after assembling. */
  async function signed(): Promise<Operation> {
    const op = operation([payload(key(), 0)], { operationID: `refused-${Math.random()}` });
    await h.store.create(op);
    return (await h.store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['aa'], signedTxs: ['02aa'], broadcastAttempted: true })))!;
  }

  it('a refusal for a reason that can change: BROADCAST with the refused mark, the refusal on the attempt, nothing released, a confirmation job', async () => {
    const op = await signed();
    const refusal = new NodeRejectionError('insufficient_funds', `sending transaction: ${GETH_NO_FUNDS}`, false, { node: 'rpc.example:8545' });
    const deps = depsWith({ broadcast: async () => Promise.reject(refusal) });
    const before = Date.now();
    await expect(processBroadcast(deps, op.id)).resolves.toMatch(/refused by the node, held open/);
    const now = await h.store.get(op.id);
    expect(now.status).toBe('BROADCAST');
    expect(now.refused).toMatchObject({ errCode: 'ERR_INSUFFICIENT_FUNDS', answer: expect.stringContaining(GETH_NO_FUNDS) });
    const due = Date.parse(now.refused!.invalidateAfter!) - Date.parse(now.refused!.since);
    expect(due).toBe(config.invalidateRefusedAfterSeconds * 1000);
    expect(Date.parse(now.refused!.since)).toBeGreaterThanOrEqual(before - 1000);
    const [original] = attemptsOf(now);
    expect(original).toMatchObject({ status: 'broadcast', refusals: [{ errCode: 'ERR_INSUFFICIENT_FUNDS', node: 'rpc.example:8545' }] });
    expect(h.released).not.toContain(op.id);
    expect(h.added).toContainEqual({ queue: 'confirm', jobId: expect.stringContaining(op.id) });
    expect(withdrawalView(now)).toMatchObject({ status: 'BROADCAST', isComplete: false, refused: { errCode: 'ERR_INSUFFICIENT_FUNDS' } });
    expect(now.history.at(-1)?.detail).toMatch(/not failed/);
  });

  it('a refusal of the bytes themselves (invalid for good): FAILED at once, reservations released', async () => {
    const op = await signed();
    const refusal = new NodeRejectionError('wrong_chain', 'sending transaction: invalid chain id for signer', false, {}, { invalidForever: true });
    const deps = depsWith({ broadcast: async () => Promise.reject(refusal) });
    await expect(processBroadcast(deps, op.id)).rejects.toThrow(/invalid chain id/);
    const now = await h.store.get(op.id);
    expect(now.status).toBe('FAILED');
    expect(now.failureReason).toMatch(/^rejected by the ledger: .*invalid chain id/);
    expect(h.released).toContain(op.id);
  });

  it('a retryable refusal is thrown for the job to retry: still SIGNED, no mark', async () => {
    const op = await signed();
    const deps = depsWith({ broadcast: async () => Promise.reject(new NodeRejectionError('pool_full', 'txpool is full', true)) });
    await expect(processBroadcast(deps, op.id)).rejects.toThrow(/txpool is full/);
    const now = await h.store.get(op.id);
    expect(now.status).toBe('SIGNED');
    expect(now.refused).toBeUndefined();
  });

  it('invalidForever is never set on a retryable refusal', () => {
    expect(new NodeRejectionError('invalid', 'x', true, {}, { invalidForever: true }).invalidForever).toBe(false);
    expect(new NodeRejectionError('invalid', 'x', false).invalidForever).toBe(false);
  });

  it('a conflict fails the withdrawal only once its proof has the ledger depth; a shallower one decides nothing', async () => {
    const op = await signed();
    await processBroadcast(depsWith({ broadcast: async () => Promise.reject(new NodeRejectionError('insufficient_funds', GETH_NO_FUNDS, false)) }), op.id);
    let proof = 2;
    const lost = async (): Promise<TxStatus> => ({
      state: 'failed',
      confirmations: 0,
      reason: 'nonce used by 0xbb',
      spentBy: '0xbb',
      proofConfirmations: proof,
    });
    const deps = depsWith({ txStatus: lost, confirmations: 3 });
    await expect(watchBroadcast(deps, await h.store.get(op.id))).resolves.toBe(false);
    expect((await h.store.get(op.id)).status).toBe('BROADCAST');
    expect(h.released).not.toContain(op.id);
    proof = 3;
    await expect(watchBroadcast(deps, await h.store.get(op.id))).resolves.toBe(true);
    const now = await h.store.get(op.id);
    expect(now.status).toBe('FAILED');
    expect(now.failureReason).toMatch(/conflict: its inputs were spent by transaction 0xbb/);
    expect(now.refused).toBeUndefined();
    expect(h.released).toContain(op.id);
  });

  it('a loss no adaptor proved (no proofConfirmations) never fails the withdrawal', async () => {
    const op = await signed();
    await processBroadcast(depsWith({ broadcast: async () => Promise.reject(new NodeRejectionError('insufficient_funds', GETH_NO_FUNDS, false)) }), op.id);
    const deps = depsWith({ txStatus: async () => ({ state: 'failed', confirmations: 0, reason: 'gone', spentBy: '0xcc' }) });
    for (let i = 0; i < 3; i++) await expect(watchBroadcast(deps, await h.store.get(op.id))).resolves.toBe(false);
    expect((await h.store.get(op.id)).status).toBe('BROADCAST');
  });

  it('once mined, the refused mark is cleared and the withdrawal ends CONFIRMED', async () => {
    const op = await signed();
    await processBroadcast(
      depsWith({ broadcast: async () => Promise.reject(new NodeRejectionError('fee_too_low', 'min relay fee not met, 144 < 282', false)) }),
      op.id,
    );
    const deps = depsWith({ txStatus: async () => ({ state: 'confirmed', confirmations: 1, blockHeight: 7 }) });
    await expect(watchBroadcast(deps, await h.store.get(op.id))).resolves.toBe(true);
    const now = await h.store.get(op.id);
    expect(now.status).toBe('CONFIRMED');
    expect(now.refused).toBeUndefined();
  });

  it('the invalidation, once due, on a ledger that cannot replace: noted once, the due time dropped; not due: nothing', async () => {
    const op = await signed();
    await processBroadcast(depsWith({ broadcast: async () => Promise.reject(new NodeRejectionError('insufficient_funds', GETH_NO_FUNDS, false)) }), op.id);
    const held = await h.store.get(op.id);
    const deps = { ...(depsWith({}) as object), vaults: { find: async () => undefined } } as never;
    await expect(invalidateIfDue(deps, held, new Date(Date.parse(held.refused!.invalidateAfter!) - 1))).resolves.toBeUndefined();
    const note = await invalidateIfDue(deps, held, new Date(Date.parse(held.refused!.invalidateAfter!) + 1));
    expect(note?.detail).toMatch(/^invalidation not possible: .*cannot replace/);
    expect(note?.mark).toEqual({ since: held.refused!.since, answer: held.refused!.answer, errCode: held.refused!.errCode });
  });

  it('an attempt keeps its first refusal and the latest ones, at most MAX_REFUSALS', () => {
    let list: Refusal[] | undefined;
    for (let i = 0; i < MAX_REFUSALS + 5; i++) list = withRefusal(list, { at: `t${i}`, answer: `a${i}`, errCode: 'E' });
    expect(list).toHaveLength(MAX_REFUSALS);
    expect(list?.[0]?.at).toBe('t0');
    expect(list?.at(-1)?.at).toBe(`t${MAX_REFUSALS + 4}`);
    expect(list?.[1]?.at).toBe('t6');
  });
});
