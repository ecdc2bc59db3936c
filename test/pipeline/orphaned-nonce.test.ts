import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORPHAN_GRACE_MS } from '../../src/ledger/orphaned-numbers.js';
import { reservationKeys } from '../../src/platform/redis-keys.js';
import { startEthLoop, RECIPIENT, withdraw, type EthLoop } from './support.js';

/**
 * Redis fails between a withdrawal's nonce reservation (its craft) and the store of the
 * withdrawal, and the release that creation then tries fails too (the same happens when the
 * API process dies there). No withdrawal will ever release that nonce.
 */
describe('a nonce reserved by a creation that failed before the withdrawal was stored', () => {
  let eth: EthLoop;
  beforeAll(async () => {
    eth = await startEthLoop();
  }, 60_000);
  afterAll(async () => {
    await eth?.stop();
  });

  it('is held through the grace period, then taken by the next withdrawal: the address is not blocked for good', async () => {
    const { loop, chain } = eth;
    const { store } = loop.svc.pipeline!.deps;
    const { reservations, redis, prefix } = loop.svc.core;
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const nonceOf = async (operationID: string) => (await store.resolve(operationID))?.unsigned.state as { nonce: string };
    const post = async (description: string) => {
      const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.operationID as string;
    };

    const realCreate = store.create.bind(store);
    const realRelease = reservations.releaseSequence.bind(reservations);
    const down = () => Object.assign(new Error('Connection is closed.'), { code: 'ECONNRESET' });
    store.create = async () => {
      throw down();
    };
    reservations.releaseSequence = async () => {
      throw down();
    };
    const failed = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'during the outage' });
    store.create = realCreate;
    reservations.releaseSequence = realRelease;
    expect(failed.status).toBe(503);

    // Within the grace period nonce 0 stays its owner's (a creation may still be running): the next one waits behind it.
    const waiting = await post('within the grace period');
    expect(await nonceOf(waiting)).toMatchObject({ nonce: '1' });

    // The grace period has passed for nonce 0 (its reservation dated back).
    const { owners } = reservationKeys(prefix).sequence(`ethdev:${v.address.toLowerCase()}`);
    await redis.hset(owners, `${'0'.padStart(20, '0')}:since`, String(Date.now() - ORPHAN_GRACE_MS - 1000));
    const refill = await post('after the grace period');
    expect(await nonceOf(refill)).toMatchObject({ nonce: '0' });

    const confirmed = (id: string) => loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
    const [first, second] = await Promise.all([confirmed(refill), confirmed(waiting)]);
    expect([first.status, second.status]).toEqual(['CONFIRMED', 'CONFIRMED']);
  }, 60_000);
});
