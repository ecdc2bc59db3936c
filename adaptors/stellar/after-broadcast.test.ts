import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStellarLedger, type LocalStellarLedger } from '../../adaptors/stellar/local-node/index.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { READ_KEY, WITHDRAW_KEY } from '../../test/helpers/service.js';

/**
 * After the broadcast on the in-repo Stellar ledger simulator with a surge price: a bid under
 * it waits in the queue (Horizon answers 504), is marked stuck, and a fee-bump speed-up takes
 * its place; a queued transaction the network dropped is submitted again.
 */
describe('after the broadcast on Stellar (ledger simulator)', () => {
  let ledger: LocalStellarLedger;
  let loop: Loop;
  const post = (vaultId: string, id: string, kind: string, body: object = {}) =>
    loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}/${kind}`, { key: WITHDRAW_KEY, body });

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    loop = await startLoop(
      { stellardev: { horizonUrl: ledger.url, networkPassphrase: ledger.passphrase } },
      { env: { STUCK_AFTER_SECONDS: '1', RESEND_AFTER_SECONDS: '1' } },
    );
  });
  afterAll(async () => {
    await loop?.stop();
    await ledger?.stop();
  });

  async function queuedWithdrawal() {
    const v = await loop.vault('stellardev');
    await ledger.fund(v.address, '100');
    const dest = Keypair.random().publicKey();
    await ledger.fund(dest, '10');
    ledger.setSurgeFee(1000n);
    const res = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: dest, amount: '5', description: 'xlm under surge', fee: '100' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const op = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST');
    expect(ledger.queued()).toContain(op.txids[0]);
    return { v, dest, op, id: res.body.operationID as string };
  }

  it('a bid under the surge price is stuck; a fee-bump speed-up lands in its place', async () => {
    const { v, dest, op, id } = await queuedWithdrawal();
    const stuck = await loop.waitFor(v.vaultId, id, (o) => o.stuck !== undefined);
    expect(stuck.stuck.reason).toMatch(/100 stroops per operation is under the 1000 .*surge pricing/);
    const low = await post(v.vaultId, id, 'speed-up', { fee: '500' });
    expect(low.status).toBe(422);
    expect(low.body.details).toMatch(/replacement minimum of 1000/);
    const before = ledger.account(v.address)!.balance;
    const res = await post(v.vaultId, id, 'speed-up');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED');
    const bump = done.attempts[1].txids[0] as string;
    expect(done.txids).toEqual([bump]);
    expect(bump).not.toBe(op.txids[0]);
    expect(done.attempts.map((a: { kind: string; status: string }) => `${a.kind}:${a.status}`)).toEqual(['original:replaced', 'speed-up:confirmed']);
    // Paid once, the fee-bump's fee charged to the vault: 1000 stroops per slot, two slots.
    expect(ledger.account(dest)!.balance).toBe(150_000_000n);
    expect(ledger.account(v.address)!.balance).toBe(before - 50_000_000n - 2000n);
    const byInner = (await (await fetch(`${ledger.url}/transactions/${op.txids[0]}`)).json()) as { fee_bump_transaction?: { hash: string } };
    expect(byInner.fee_bump_transaction?.hash).toBe(bump);
    expect(ledger.queued()).toEqual([]);
    ledger.setSurgeFee(undefined);
  });

  it('a queued transaction the network dropped is submitted again from its signed envelope', async () => {
    const { v, op, id } = await queuedWithdrawal();
    expect(ledger.dropQueued(op.txids[0])).toBe(true);
    ledger.setSurgeFee(undefined);
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED', 30_000);
    expect(done.txids).toEqual(op.txids);
    expect(done.attempts[0].rebroadcasts).toBeGreaterThanOrEqual(1);
    const list = await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: READ_KEY });
    expect(list.body.items[0].attempts[0].txids).toEqual(op.txids);
  });

  // Last: it moves the simulator's clock a day and a half ahead.
  it('a speed-up was sent but the original landed without it: once both are past their bound, CONFIRMED on the original', async () => {
    const { v, dest, op, id } = await queuedWithdrawal();
    // The fee-bump bids 10x, still under the surge price: it takes the original's place in the queue.
    ledger.setSurgeFee(5000n);
    const res = await post(v.vaultId, id, 'speed-up', { fee: '1000' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sped = await loop.waitFor(
      v.vaultId,
      id,
      (o) => o.attempts[1]?.status === 'broadcast' && o.history.some((h: { detail?: string }) => h.detail?.startsWith('speed-up sent')),
    );
    const bump = sped.attempts[1].txids[0] as string;
    expect(ledger.queued()).toEqual([bump]);
    const stored = await new OperationStore(loop.svc.core.redis, loop.svc.core.prefix).resolve(id);
    const original = Buffer.from(stored!.signedTxs![0]!, 'hex').toString('base64');
    // In one step, between two looks of the watcher: the fee-bump leaves the queue, the original
    // lands on its own, and the network passes the bound (a day): the fee-bump can never land,
    // and its lookup finds nothing, so its attempt is judged from the account's history.
    expect(ledger.dropQueued(bump)).toBe(true);
    ledger.setSurgeFee(undefined);
    const landed = ledger.submit(original);
    expect(landed.kind).toBe('applied');
    ledger.advanceTime(1.5 * 86_400);
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status !== 'BROADCAST', 30_000);
    expect(done.status, JSON.stringify(done.history)).toBe('CONFIRMED');
    expect(done.txids).toEqual(op.txids);
    expect(done.attempts.map((a: { kind: string; status: string }) => `${a.kind}:${a.status}`)).toEqual(['original:confirmed', 'speed-up:replaced']);
    expect(ledger.account(dest)!.balance).toBe(150_000_000n);
  });
});
