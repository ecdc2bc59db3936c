import { Account, Asset, Keypair, Operation, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStellarLedger, type LocalStellarLedger } from './index.js';

/** The simulator's fee-bump (CAP-15) and surge-queue rules: what stellar-core refuses, it refuses. */
describe('Stellar ledger simulator: fee-bump envelopes and the surge queue', () => {
  let ledger: LocalStellarLedger;
  const payer = Keypair.random();
  const dest = Keypair.random();

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    await ledger.fund(payer.publicKey(), '100');
    await ledger.fund(dest.publicKey(), '10');
  });
  afterAll(async () => {
    await ledger?.stop();
  });

  const inner = (fee = '100', signer = payer): Transaction => {
    const entry = ledger.account(payer.publicKey())!;
    const tx = new TransactionBuilder(new Account(payer.publicKey(), entry.sequence.toString()), { fee, networkPassphrase: ledger.passphrase })
      .addOperation(Operation.payment({ destination: dest.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimeout(300)
      .build();
    tx.sign(signer);
    return tx;
  };
  const bump = (tx: Transaction, rate: string, signers: Keypair[] = [payer], feeSource = payer.publicKey()) => {
    const fb = TransactionBuilder.buildFeeBumpTransaction(feeSource, rate, tx, ledger.passphrase);
    for (const k of signers) fb.sign(k);
    return fb.toEnvelope().toXDR('base64');
  };
  const code = (xdr: string) => {
    const out = ledger.submit(xdr);
    return out.kind === 'rejected' ? out.transaction : out.kind;
  };

  it('refuses bad fee-bumps with stellar-core result codes and changes nothing', () => {
    const seq = ledger.account(payer.publicKey())!.sequence;
    const stranger = Keypair.random();
    expect(code(bump(inner('100', stranger), '200'))).toBe('tx_bad_auth'); // inner signature by another key
    expect(code(bump(inner(), '200', [stranger]))).toBe('tx_bad_auth'); // fee source did not sign
    expect(code(bump(inner(), '200', [payer, stranger]))).toBe('tx_bad_auth_extra');
    expect(code(bump(inner(), '200', [payer], stranger.publicKey()))).toBe('tx_no_source_account');
    // Under the base fee for two slots, and under the inner bid's rate.
    const cheap = TransactionBuilder.buildFeeBumpTransaction(payer, '100', inner('100'), ledger.passphrase);
    const raw = cheap.toEnvelope();
    raw.feeBump().tx().fee(xdr.Int64.fromString('150'));
    const resigned = TransactionBuilder.fromXDR(raw, ledger.passphrase);
    resigned.signatures.length = 0;
    resigned.sign(payer);
    expect(code(resigned.toEnvelope().toXDR('base64'))).toBe('tx_insufficient_fee');
    expect(ledger.account(payer.publicKey())!.sequence).toBe(seq);
  });

  it('a queued bid is replaced only by a fee-bump at 10x its rate; the winner is charged to the fee source', async () => {
    ledger.setSurgeFee(1000n);
    const tx = inner('100');
    expect(code(tx.toEnvelope().toXDR('base64'))).toBe('queued');
    expect(ledger.queued()).toEqual([tx.hash().toString('hex')]);
    expect(code(bump(tx, '900'))).toBe('tx_insufficient_fee');
    const before = ledger.account(payer.publicKey())!.balance;
    const winner = bump(tx, '1000');
    expect(code(winner)).toBe('applied');
    expect(ledger.queued()).toEqual([]);
    expect(ledger.account(payer.publicKey())!.balance).toBe(before - 10_000_000n - 2000n);
    expect(ledger.account(dest.publicKey())!.balance).toBe(110_000_000n);
    // The inner transaction alone can no longer apply: its sequence number is spent.
    expect(code(tx.toEnvelope().toXDR('base64'))).toBe('tx_bad_seq');
    const res = await fetch(`${ledger.url}/transactions/${tx.hash().toString('hex')}`);
    expect(res.status).toBe(200);
    ledger.setSurgeFee(undefined);
  });

  it('answers 504 over HTTP for a bid under the surge price, and lets it in when the price falls', async () => {
    ledger.setSurgeFee(500n);
    const tx = inner('100');
    const res = await fetch(`${ledger.url}/transactions`, { method: 'POST', body: new URLSearchParams({ tx: tx.toEnvelope().toXDR('base64') }) });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { title: string }).title).toBe('Timeout');
    ledger.setSurgeFee(undefined);
    expect(ledger.queued()).toEqual([]);
    expect((await fetch(`${ledger.url}/transactions/${tx.hash().toString('hex')}`)).status).toBe(200);
  });
});
