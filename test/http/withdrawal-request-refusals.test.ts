import { Keypair, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStellarLedger, type LocalStellarLedger } from '../../adaptors/stellar/local-node/index.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { RECIPIENT, withdraw as post } from '../pipeline/support.js';

/**
 * A withdrawal request names one asset, an amount the ledger can carry written as the number
 * alone, and a memo only where the ledger carries one. Anything else is a 422 naming the field,
 * before anything is reserved: never a 500, never sent as something else.
 */
describe('withdrawal requests the service refuses instead of sending something else', () => {
  let chain: TestChain;
  let stellar: LocalStellarLedger;
  let loop: Loop;
  let eth: { vaultId: string; address: string };

  beforeAll(async () => {
    chain = await startTestChain('anvil');
    stellar = await startStellarLedger({ closeIntervalMs: 0 });
    loop = await startLoop(
      {
        ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 },
        stellardev: { horizonUrl: stellar.url, networkPassphrase: stellar.passphrase },
      },
      { workers: false },
    );
    eth = await loop.vault('ethdev');
    await chain.funder.sendEth(eth.address, 10n ** 18n);
  }, 60_000);
  afterAll(async () => {
    await loop?.stop();
    await stellar?.stop();
    await chain?.stop();
  });

  const withdraw = (vaultId: string, body: object) => post(loop.svc, vaultId, body);

  it("asset '*' (every asset, for balances) is refused naming the ledger's assets, not sent as its first asset", async () => {
    for (const asset of ['*', 'NOPE']) {
      const res = await withdraw(eth.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'wildcard', asset });
      expect([res.status, res.body.errCode, res.body.field]).toEqual([422, 'ERR_INVALID_ARGUMENTS', 'asset']);
      expect(res.body.valid).toEqual(['ETH', 'DEMO']);
      expect(res.body.details).toContain('Valid values: ETH, DEMO');
    }
    // A symbol in another case still names its asset (here one the vault does not hold).
    const named = await withdraw(eth.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'lower case', asset: 'demo' });
    expect(named.body).toMatchObject({ errCode: 'ERR_INSUFFICIENT_FUNDS', asset: 'DEMO' });
  });

  it('a memo on a ledger that carries none is refused, not dropped; Stellar sends it', async () => {
    const res = await withdraw(eth.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'exchange deposit', memo: '12345' });
    expect([res.status, res.body.errCode, res.body.field]).toEqual([422, 'ERR_INVALID_ARGUMENTS', 'memo']);

    const v = await loop.vault('stellardev');
    await stellar.fund(v.address, '100');
    const sent = await withdraw(v.vaultId, { recipientAddress: Keypair.random().publicKey(), amount: '5', description: 'with memo', memo: 'text:hello' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const envelope = Buffer.from(sent.body.appData.txs[0].serialized, 'hex').toString('base64');
    const tx = TransactionBuilder.fromXDR(envelope, stellar.passphrase) as Transaction;
    expect([tx.memo.type, String(tx.memo.value)]).toEqual(['text', 'hello']);
  });

  it('an amount with whitespace around it is refused, not stored as sent', async () => {
    for (const amount of [' 0.01', '0.01\n', '\t0.01']) {
      const res = await withdraw(eth.vaultId, { recipientAddress: RECIPIENT, amount, description: 'padded' });
      expect([res.status, res.body.errCode], JSON.stringify(amount)).toEqual([422, 'ERR_INVALID_ARGUMENTS']);
    }
  });

  it('an ERC-20 amount above uint256 is a 422 on amount, not a 500', async () => {
    // 10^72 DEMO of 6 decimals = 10^78 base units, above 2^256-1 (~1.16 × 10^77).
    const res = await withdraw(eth.vaultId, { recipientAddress: RECIPIENT, asset: 'DEMO', amount: '1'.padEnd(73, '0'), description: 'huge' });
    expect([res.status, res.body.errCode, res.body.field]).toEqual([422, 'ERR_INVALID_ARGUMENTS', 'amount']);
  });
});
