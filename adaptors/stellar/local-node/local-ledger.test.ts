import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { codesFromResultXdr } from '../network/errors.js';
import { startStellarLedger, type CreditAsset, type LocalStellarLedger } from './index.js';

const XLM = 10_000_000n;

describe('local Stellar ledger simulator: Horizon shapes and stellar-core rules', () => {
  let ledger: LocalStellarLedger;
  let alice: Keypair;
  let usd: CreditAsset;

  const get = async (path: string) => {
    const res = await fetch(`${ledger.url}${path}`);
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, any> };
  };
  const post = async (envelope: string) => {
    const res = await fetch(`${ledger.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tx: envelope }).toString(),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const build = (
    signers: Keypair[],
    ops: xdr.Operation[],
    o: { seqDelta?: bigint; fee?: string; passphrase?: string; minTime?: number; source?: Keypair } = {},
  ) => {
    const src = o.source ?? alice;
    const seq = ledger.account(src.publicKey())?.sequence ?? 0n;
    const b = new TransactionBuilder(new Account(src.publicKey(), (seq + (o.seqDelta ?? 0n)).toString()), {
      fee: o.fee ?? '100',
      networkPassphrase: o.passphrase ?? ledger.passphrase,
      timebounds: { minTime: o.minTime ?? 0, maxTime: Math.floor(Date.now() / 1000) + 300 },
    });
    ops.forEach((op) => b.addOperation(op));
    const tx = b.build();
    signers.forEach((k) => tx.sign(k));
    return tx.toEnvelope().toXDR('base64');
  };
  const pay = (destination: string, amount: string, asset = Asset.native()) => Operation.payment({ destination, asset, amount });
  const rejects = async (envelope: string, code: string, ops?: string[]) => {
    const before = ledger.account(alice.publicKey())!;
    const [balance, sequence] = [before.balance, before.sequence];
    const { status, body } = await post(envelope);
    expect(status).toBe(400);
    expect(body.type).toBe('https://stellar.org/horizon-errors/transaction_failed');
    expect(body.extras.result_codes).toEqual(ops ? { transaction: code, operations: ops } : { transaction: code });
    expect(codesFromResultXdr(body.extras.result_xdr)).toEqual(body.extras.result_codes);
    const after = ledger.account(alice.publicKey())!;
    if (code === 'tx_failed') {
      // Applied as failed: fee charged and sequence consumed, operations rolled back.
      expect([after.balance, after.sequence]).toEqual([balance - 100n * BigInt(ops!.length), sequence + 1n]);
    } else {
      expect([after.balance, after.sequence]).toEqual([balance, sequence]);
    }
  };

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    alice = Keypair.random();
    await ledger.fund(alice.publicKey(), '100');
    usd = await ledger.createAsset('USD');
  });
  afterAll(() => ledger.stop());

  it('says it is a simulator and serves its passphrase at the root', async () => {
    const { body } = await get('/');
    expect(body).toMatchObject({ simulator: true, network_passphrase: Networks.STANDALONE });
    expect(body.simulator_notice).toMatch(/SIMULATOR/);
  });

  it('answers Horizon problem+json for missing and malformed resources', async () => {
    const missing = await get(`/accounts/${Keypair.random().publicKey()}`);
    expect(missing.status).toBe(404);
    expect(missing.type).toMatch(/^application\/problem\+json/);
    expect(missing.body).toMatchObject({ type: 'https://stellar.org/horizon-errors/not_found', title: 'Resource Missing', status: 404 });
    expect((await get('/accounts/nope')).body.extras.invalid_field).toBe('account_id');
    expect((await get(`/transactions/${'ab'.repeat(32)}`)).status).toBe(404);
    expect((await post('AAAA')).body.type).toBe('https://stellar.org/horizon-errors/transaction_malformed');
  });

  it('funds through friendbot once, with an int64 sequence from the ledger number', async () => {
    const bob = Keypair.random().publicKey();
    const first = await get(`/friendbot?addr=${bob}`);
    expect(first.status).toBe(200);
    expect(first.body.successful).toBe(true);
    const acct = await get(`/accounts/${bob}`);
    expect(acct.body.balances).toEqual([{ balance: '10000.0000000', buying_liabilities: '0.0000000', selling_liabilities: '0.0000000', asset_type: 'native' }]);
    expect(BigInt(acct.body.sequence)).toBe(BigInt(first.body.ledger) << 32n);
    expect((await get(`/friendbot?addr=${bob}`)).status).toBe(400);
  });

  it('rejects bad sequence, bad auth, extra signatures, low fee and early time bounds without touching the account', async () => {
    const dest = Keypair.random();
    await ledger.fund(dest.publicKey(), '1');
    const op = [pay(dest.publicKey(), '1')];
    await rejects(build([alice], op, { seqDelta: 1n }), 'tx_bad_seq');
    await rejects(build([alice], op, { seqDelta: -1n }), 'tx_bad_seq');
    await rejects(build([], op), 'tx_bad_auth');
    await rejects(build([dest], op), 'tx_bad_auth');
    await rejects(build([alice], op, { passphrase: Networks.TESTNET }), 'tx_bad_auth');
    await rejects(build([alice, dest], op), 'tx_bad_auth_extra');
    await rejects(build([alice], op, { fee: '99' }), 'tx_insufficient_fee');
    // The builder's fee is per operation: 2 × 99 < 2 × base fee.
    await rejects(build([alice], [...op, ...op], { fee: '99' }), 'tx_insufficient_fee');
    await rejects(build([alice], op, { minTime: Math.floor(Date.now() / 1000) + 120 }), 'tx_too_early');
  });

  it('applies failing operations as failed transactions (fee and sequence consumed, nothing else)', async () => {
    const dest = Keypair.random();
    await ledger.fund(dest.publicKey(), '1');
    await rejects(build([alice], [pay(Keypair.random().publicKey(), '1')]), 'tx_failed', ['op_no_destination']);
    await rejects(build([alice], [pay(dest.publicKey(), '99')]), 'tx_failed', ['op_underfunded']);
    await rejects(build([alice], [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '0.9999999' })]), 'tx_failed', [
      'op_low_reserve',
    ]);
    await rejects(build([alice], [Operation.createAccount({ destination: dest.publicKey(), startingBalance: '1' })]), 'tx_failed', ['op_already_exists']);
    await rejects(build([alice], [pay(dest.publicKey(), '1', new Asset(usd.code, usd.issuer))]), 'tx_failed', ['op_src_no_trust']);
    await rejects(build([alice], [pay(dest.publicKey(), '1'), pay(Keypair.random().publicKey(), '1')]), 'tx_failed', ['op_success', 'op_no_destination']);
    await rejects(build([alice], [Operation.setOptions({ homeDomain: 'example.com' })]), 'tx_failed', ['op_not_supported']);
    expect(ledger.account(dest.publicKey())!.balance).toBe(XLM);
  });

  it("bump_sequence: to a number at or below the account's changes nothing but consuming the transaction's own; above it raises it", async () => {
    const before = ledger.account(alice.publicKey())!.sequence;
    expect((await post(build([alice], [Operation.bumpSequence({ bumpTo: before.toString() })]))).status).toBe(200);
    expect(ledger.account(alice.publicKey())!.sequence).toBe(before + 1n);
    expect((await post(build([alice], [Operation.bumpSequence({ bumpTo: (before + 10n).toString() })]))).status).toBe(200);
    expect(ledger.account(alice.publicKey())!.sequence).toBe(before + 10n);
  });

  it('enforces trustlines, their limits and the reserve they need', async () => {
    const carol = Keypair.random();
    // Without the fee above the minimum balance the transaction cannot even pay it.
    await ledger.fund(carol.publicKey(), '1');
    const noFee = build([carol], [Operation.changeTrust({ asset: new Asset(usd.code, usd.issuer) })], { source: carol });
    expect((await post(noFee)).body.extras.result_codes).toEqual({ transaction: 'tx_insufficient_balance' });
    // With the fee but at the 2-reserve minimum, a trustline (one more reserve) is unaffordable.
    await ledger.fund(carol.publicKey(), '0.00001');
    const lowReserve = build([carol], [Operation.changeTrust({ asset: new Asset(usd.code, usd.issuer) })], { source: carol });
    expect((await post(lowReserve)).body.extras.result_codes).toEqual({ transaction: 'tx_failed', operations: ['op_low_reserve'] });
    await expect(ledger.issue(usd, alice.publicKey(), '1')).rejects.toThrow('op_no_trust');
    await ledger.changeTrust(alice, usd, '10');
    expect(ledger.account(alice.publicKey())!.subentries).toBe(1);
    await expect(ledger.issue(usd, alice.publicKey(), '10.0000001')).rejects.toThrow('op_line_full');
    await ledger.issue(usd, alice.publicKey(), '10');
    await expect(ledger.changeTrust(alice, usd, '0')).rejects.toThrow('op_invalid_limit');
    const acct = await get(`/accounts/${alice.publicKey()}`);
    expect(acct.body.balances[0]).toMatchObject({
      asset_type: 'credit_alphanum4',
      asset_code: 'USD',
      asset_issuer: usd.issuer,
      balance: '10.0000000',
      limit: '10.0000000',
    });
    expect(acct.body.subentry_count).toBe(1);
  });

  it('keeps data entries (manage_data) as Horizon shows them: values in base64, each one a subentry', async () => {
    const dave = Keypair.random();
    await ledger.fund(dave.publicKey(), '3');
    await ledger.manageData(dave, 'config.memo_required', '1');
    await ledger.manageData(dave, 'note', 'a');
    await ledger.manageData(dave, 'note', 'b');
    let acct = await get(`/accounts/${dave.publicKey()}`);
    expect(acct.body.data).toEqual({ 'config.memo_required': 'MQ==', note: 'Yg==' });
    expect(acct.body.subentry_count).toBe(2);
    await ledger.manageData(dave, 'note', null);
    await expect(ledger.manageData(dave, 'note', null)).rejects.toThrow('op_data_name_not_found');
    await expect(ledger.manageData(dave, 'bad\nname', '1')).rejects.toThrow('op_data_invalid_name');
    acct = await get(`/accounts/${dave.publicKey()}`);
    expect([acct.body.data, acct.body.subentry_count]).toEqual([{ 'config.memo_required': 'MQ==' }, 1]);
    // Left at its minimum balance (2 reserves) once the fee is paid, a data entry (one more reserve) is unaffordable.
    const poor = Keypair.random();
    await ledger.fund(poor.publicKey(), '1.0000100');
    await expect(ledger.manageData(poor, 'x', '1')).rejects.toThrow('op_low_reserve');
    expect((await get(`/accounts/${poor.publicKey()}`)).body.data).toEqual({});
  });

  it('answers a resubmitted transaction with its recorded result', async () => {
    const env = build([alice], [pay(Keypair.master(ledger.passphrase).publicKey(), '1')]);
    const first = await post(env);
    expect(first.status).toBe(200);
    const again = await post(env);
    expect([again.status, again.body.hash, again.body.ledger]).toEqual([200, first.body.hash, first.body.ledger]);
    const page = await get('/ledgers?order=desc&limit=1');
    expect(page.body._embedded.records[0]).toMatchObject({ base_fee_in_stroops: 100, base_reserve_in_stroops: 5_000_000 });
  });
});
