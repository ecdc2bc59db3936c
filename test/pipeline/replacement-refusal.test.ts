import { afterAll, describe, expect, it } from 'vitest';
import { type Attempt, attemptsOf } from '../../src/withdrawals/model/operation.js';
import { replaceWithdrawal } from '../../src/withdrawals/replace-withdrawal.js';
import { harness, key, operation, payload } from '../helpers/operation-kit.js';

/** A withdrawal whose transaction is mined cannot be replaced: whichever of its attempts was mined. */
describe('replacing a mined withdrawal', () => {
  const h = harness();
  afterAll(() => h.cleanup());

  async function broadcastWith(minedAt: [number | undefined, number | undefined]) {
    const k = key();
    const op = operation([payload(k, 0)], { operationID: `mined-${Math.random()}` });
    await h.store.create(op);
    await h.store.transition(op.id, ['EXECUTING'], 'BROADCAST', () => ({ txids: ['aa'] }));
    const at = new Date().toISOString();
    await h.store.update(op.id, (o) => ({
      ...o,
      attempts: [
        { ...(attemptsOf(o)[0] as Attempt), status: 'broadcast', ...(minedAt[0] ? { minedAt: minedAt[0] } : {}) },
        { kind: 'speed-up', txids: ['bb'], fee: '2000', createdAt: at, sentAt: at, status: 'broadcast', ...(minedAt[1] ? { minedAt: minedAt[1] } : {}) },
      ],
    }));
    return op;
  }

  it('refuses a speed-up or a cancel once the original or its speed-up is mined', async () => {
    for (const mined of [
      [undefined, 12],
      [12, undefined],
    ] as [number | undefined, number | undefined][]) {
      const op = await broadcastWith(mined);
      for (const kind of ['speed-up', 'cancel'] as const) {
        await expect(
          replaceWithdrawal({ store: h.store, registry: h.registry } as never, op.vaultId, op.id, kind),
          `${kind}, mined ${String(mined)}`,
        ).rejects.toMatchObject({
          status: 409,
          errCode: 'ERR_NOT_REPLACEABLE',
          details: expect.stringMatching(/already mined/),
        });
      }
    }
  });
});
