import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStellarLedger, type LocalStellarLedger } from './index.js';

/** The simulator's `GET /accounts/{id}/transactions`, in Horizon's shape for the fields the adaptor reads. */
describe("Stellar ledger simulator: an account's transactions", () => {
  let ledger: LocalStellarLedger;
  const source = Keypair.random();
  const sponsor = Keypair.random();
  const dest = Keypair.random();
  const hashes: Record<string, string> = {};

  const get = async (path: string) => {
    const res = await fetch(`${ledger.url}${path}`);
    return { status: res.status, latestLedger: res.headers.get('latest-ledger'), body: (await res.json()) as Record<string, any> };
  };
  const records = async (account: string, query: string) =>
    (await get(`/accounts/${account}/transactions?${query}`)).body._embedded.records as Record<string, any>[];

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    await ledger.fund(source.publicKey(), '100');
    await ledger.fund(sponsor.publicKey(), '100');
    await ledger.fund(dest.publicKey(), '10');
    const entry = ledger.account(source.publicKey())!;
    const inner = new TransactionBuilder(new Account(source.publicKey(), entry.sequence.toString()), { fee: '100', networkPassphrase: ledger.passphrase })
      .addOperation(Operation.payment({ destination: dest.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimeout(300)
      .build();
    inner.sign(source);
    const fb = TransactionBuilder.buildFeeBumpTransaction(sponsor.publicKey(), '200', inner, ledger.passphrase);
    fb.sign(sponsor);
    const out = ledger.submit(fb.toEnvelope().toXDR('base64'));
    expect(out.kind).toBe('applied');
    hashes.inner = inner.hash().toString('hex');
    hashes.outer = fb.hash().toString('hex');
    await expect(ledger.manageData(source, 'absent', null)).rejects.toThrow(/op_data_name_not_found/);
    await ledger.manageData(source, 'k', 'v');
  });
  afterAll(async () => {
    await ledger?.stop();
  });

  it('lists the transactions an account takes part in, newest first, a fee-bump under its outer hash with the inner source and sequence', async () => {
    const seq = ledger.account(source.publicKey())!.sequence;
    const list = await records(source.publicKey(), 'order=desc&limit=10&include_failed=true');
    expect(list.map((r) => [r.source_account, r.source_account_sequence, r.successful])).toEqual([
      [source.publicKey(), seq.toString(), true],
      [source.publicKey(), (seq - 1n).toString(), false],
      [source.publicKey(), (seq - 2n).toString(), true],
      [expect.any(String), expect.any(String), true], // create_account from the root
    ]);
    expect(list[2]).toMatchObject({
      hash: hashes.outer,
      fee_account: sponsor.publicKey(),
      inner_transaction: { hash: hashes.inner },
      fee_bump_transaction: { hash: hashes.outer },
    });
    expect(list.map((r) => BigInt(r.paging_token))).toEqual([...list.map((r) => BigInt(r.paging_token))].sort((a, b) => (a > b ? -1 : 1)));
    // The fee payer and the paid account see the fee-bump too; failed ones only when asked.
    expect((await records(sponsor.publicKey(), 'order=desc&limit=10')).map((r) => r.hash)).toContain(hashes.outer);
    expect((await records(dest.publicKey(), 'order=desc&limit=10')).map((r) => r.hash)).toContain(hashes.outer);
    expect((await records(source.publicKey(), 'order=desc&limit=10')).map((r) => r.successful)).toEqual([true, true, true]);
  });

  it('pages with the paging token as cursor, in either order; no Latest-Ledger (a history endpoint)', async () => {
    const all = await records(source.publicKey(), 'order=desc&limit=10&include_failed=true');
    const res = await get(`/accounts/${source.publicKey()}/transactions?order=desc&limit=2&include_failed=true`);
    expect(res.latestLedger).toBeNull();
    expect(res.body._embedded.records.map((r: any) => r.hash)).toEqual(all.slice(0, 2).map((r) => r.hash));
    const next = await records(source.publicKey(), `order=desc&limit=2&include_failed=true&cursor=${all[1]!.paging_token}`);
    expect(next.map((r) => r.hash)).toEqual(all.slice(2, 4).map((r) => r.hash));
    expect(res.body._links.next.href).toContain(`cursor=${all[1]!.paging_token}`);
    const asc = await records(source.publicKey(), `order=asc&limit=10&include_failed=true&cursor=${all[2]!.paging_token}`);
    expect(asc.map((r) => r.hash)).toEqual(
      all
        .slice(0, 2)
        .reverse()
        .map((r) => r.hash),
    );
  });

  it('an account it never saw has an empty page; bad arguments are 400 naming the field', async () => {
    expect((await get(`/accounts/${Keypair.random().publicKey()}/transactions`)).body._embedded.records).toEqual([]);
    for (const [query, field] of [
      ['limit=201', 'limit'],
      ['limit=0', 'limit'],
      ['order=up', 'order'],
      ['cursor=x1', 'cursor'],
      ['include_failed=yes', 'include_failed'],
    ]) {
      const r = await get(`/accounts/${source.publicKey()}/transactions?${query}`);
      expect([r.status, r.body.extras?.invalid_field]).toEqual([400, field]);
    }
    expect((await get('/accounts/GNOPE/transactions')).status).toBe(400);
  });
});
