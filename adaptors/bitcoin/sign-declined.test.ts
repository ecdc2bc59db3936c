import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';

const RECIPIENT = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

const outpoints = (hex: string) => Transaction.fromHex(hex).ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`);

/** Coins reserved by a withdrawal whose signing is canceled or declined come back at once. */
describe('Bitcoin regtest: canceled and declined signing give the coin back', () => {
  let regtest: BitcoinRegtest;
  let loop: Loop;
  let miner: NodeJS.Timeout;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    loop = await startLoop({ btcregtest: { backend: 'esplora', url: regtest.url, confirmations: 1 } }, { env: { RECONCILE_AFTER_SECONDS: '3600' } });
    miner = setInterval(() => void regtest.mine(1).catch(() => undefined), 300);
  });
  afterAll(async () => {
    clearInterval(miner);
    await loop?.stop();
    await regtest?.stop();
  });

  const withdraw = (vaultId: string, amount: string, description: string) =>
    loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: RECIPIENT, amount, description, fee: '2' },
    });

  it('the single coin of a vault is spent by the withdrawal after a cancel and a decline', async () => {
    const v = await loop.vault('btcregtest');
    await regtest.faucet(v.address, 100_000_000n);
    loop.custody.control.setFaults({ holdApprovals: true }, v.vaultId);

    const held = await withdraw(v.vaultId, '0.5', 'to cancel');
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    const coin = outpoints(held.body.appData.txs[0].serialized);
    expect(coin).toHaveLength(1);
    // While it waits for the quorum, its coin is taken: nothing else can pay.
    const blocked = await withdraw(v.vaultId, '0.3', 'while reserved');
    expect(blocked.status).toBe(422);

    const canceled = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals/${held.body.operationID}/cancel`, { key: WITHDRAW_KEY });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body.status).toBe('FAILED');

    loop.custody.control.setFaults({ end: 'DECLINED', notifyEnd: true }, v.vaultId);
    const declined = await withdraw(v.vaultId, '0.4', 'to decline');
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    expect(outpoints(declined.body.appData.txs[0].serialized)).toEqual(coin);
    const failed = await loop.waitFor(v.vaultId, declined.body.operationID, (o) => o.status !== 'EXECUTING');
    expect(failed.status).toBe('FAILED');
    expect(failed.failureReason).toMatch(/^sign operation DECLINED at the custody service/);

    loop.custody.control.setFaults({}, v.vaultId);
    const paid = await withdraw(v.vaultId, '0.3', 'after both');
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const done = await loop.waitFor(v.vaultId, paid.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    const onChain = Transaction.fromHex(await (await fetch(`${regtest.url}/tx/${done.txids[0]}/hex`)).text());
    expect(onChain.ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`)).toEqual(coin);
  });
}, 120_000);
