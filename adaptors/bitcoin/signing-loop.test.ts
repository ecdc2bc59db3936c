import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/ledger/amounts.js';
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { READ_KEY, WITHDRAW_KEY } from '../../test/helpers/service.js';

const RECIPIENT = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const P2TR_RECIPIENT = 'bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6';

describe('signing loop on Bitcoin regtest (bcoin): withdraw → quorum → callback → broadcast → CONFIRMED', () => {
  let regtest: BitcoinRegtest;
  let loop: Loop;
  let miner: NodeJS.Timeout;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    loop = await startLoop({ btcregtest: { backend: 'esplora', url: regtest.url, confirmations: 1 } });
    // Blocks keep coming, as on a live network, so broadcast transactions confirm.
    miner = setInterval(() => void regtest.mine(1).catch(() => undefined), 300);
  });
  afterAll(async () => {
    clearInterval(miner);
    await loop.stop();
    await regtest.stop();
  });

  const withdraw = (vaultId: string, body: object) => loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });
  const sats = async (address: string): Promise<bigint> => {
    const text = (await loop.svc.call('GET', `/api/v1.0/ledgers/btcregtest/addresses/${address}/balance`, { key: READ_KEY })).body.balances[0].amount as string;
    return text === '0' ? 0n : parseAmount(text, 8);
  };
  const chainTx = async (txid: string) => Transaction.fromHex(await (await fetch(`${regtest.url}/tx/${txid}/hex`)).text());

  for (const format of ['p2wpkh', 'p2sh-p2wpkh', 'p2pkh']) {
    it(`withdraws from a ${format} vault to CONFIRMED with the exact amount`, async () => {
      const v = await loop.vault('btcregtest', { addressFormat: format });
      await regtest.faucet(v.address, 100_000_000n);
      const before = await sats(RECIPIENT);
      const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.12345678', description: `from ${format}`, fee: '5' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
      expect(done.status, done.failureReason).toBe('CONFIRMED');
      expect((await sats(RECIPIENT)) - before).toBe(12_345_678n);
      const tx = await chainTx(done.txids[0]);
      const change = tx.outs.reduce((sum, o) => sum + BigInt(o.value), 0n) - 12_345_678n;
      expect(await sats(v.address)).toBe(change);
    });
  }

  it('pays a P2TR recipient', async () => {
    const v = await loop.vault('btcregtest');
    await regtest.faucet(v.address, 10_000_000n);
    const res = await withdraw(v.vaultId, { recipientAddress: P2TR_RECIPIENT, amount: 0.01, description: 'to taproot' });
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    expect(done.txids).toHaveLength(1);
  });

  it('completes a two-input withdrawal whose signatures arrive in two partial callbacks', async () => {
    const v = await loop.vault('btcregtest');
    loop.custody.control.setFaults({ partial: true }, v.vaultId);
    await regtest.faucet(v.address, 30_000_000n);
    await regtest.faucet(v.address, 30_000_000n);
    const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.5', description: 'needs both coins' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    const op = await loop.svc.pipeline!.deps.store.resolve(done.operationID);
    expect(op?.unsigned.payloads).toHaveLength(2);
    expect((await chainTx(done.txids[0])).ins).toHaveLength(2);
  });

  it('concurrent withdrawals from one vault never spend the same coin', async () => {
    const v = await loop.vault('btcregtest');
    for (let i = 0; i < 4; i++) await regtest.faucet(v.address, 20_000_000n);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.1', description: `parallel ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const done = await Promise.all(results.map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED')));
    expect(new Set(done.map((o) => o.txids[0])).size).toBe(4);
    const fifth = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.5', description: 'too much now' });
    expect(fifth.status).toBe(422);
    expect(fifth.body.errCode).toBe('ERR_INSUFFICIENT_FUNDS');
  });

  it('consolidates through the withdrawal route: a withdrawal to the vault itself spends its coins into one', async () => {
    const v = await loop.vault('btcregtest');
    await regtest.fanOut(v.address, 40, 100_000n);
    const utxos = async () => (await (await fetch(`${regtest.url}/address/${v.address}/utxo`)).json()) as unknown[];
    await regtest.mine(1);
    expect(await utxos()).toHaveLength(40);
    const res = await withdraw(v.vaultId, { recipientVault: v.vaultId, amount: '0.001', description: 'consolidate', fee: '2' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    const tx = await chainTx(done.txids[0]);
    expect(tx.ins).toHaveLength(40);
    expect(tx.outs).toHaveLength(1);
    const left = await utxos();
    expect(left).toHaveLength(1);
    // Everything but the fee (2 sat/vB of ~40 inputs) stays in the vault.
    const kept = BigInt(tx.outs[0]!.value);
    expect(await sats(v.address)).toBe(kept);
    expect(kept).toBeLessThan(4_000_000n);
    expect(kept).toBeGreaterThan(4_000_000n - 10_000n);
  });

  it('refuses a callback that names another ledger, and still completes on the right one', async () => {
    const v = await loop.vault('btcregtest');
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    await regtest.faucet(v.address, 10_000_000n);
    const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'ledger check' });
    const simOp = await waitForSim(loop, res.body.operationID);
    const body = { publicKeys: simOp.publicKeys, providerData: '', dataToSign: simOp.dataToSign, signatures: simOp.signatures, v: simOp.v };
    const { signCallback } = await import('../../src/security/callback-hmac.js');
    const { TEST_CALLBACK_SECRET } = await import('../../test/helpers/service.js');
    const post = (ledgerId: string) => {
      const raw = JSON.stringify(body);
      return loop.svc.call('POST', `/api/v1.0/sign_complete_callback?ledgerId=${ledgerId}`, { rawBody: raw, headers: signCallback(TEST_CALLBACK_SECRET, raw) });
    };
    const wrong = await post('ethdev');
    expect(wrong.status).toBe(400);
    expect(wrong.body.reason).toBe('ledger-mismatch');
    const right = await post('BTCREGTEST');
    expect(right.status).toBe(200);
    await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    const status = await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals/${res.body.operationID}`, { key: READ_KEY });
    expect(status.body.isComplete).toBe(true);
  });
});

async function waitForSim(loop: Loop, operationID: string) {
  for (let i = 0; i < 200; i++) {
    const op = loop.custody.control.operation(operationID);
    if (op?.status === 'COMPLETED') return op;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the custody emulator did not complete the operation');
}
