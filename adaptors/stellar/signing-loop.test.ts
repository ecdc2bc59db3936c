import { Account, Keypair, MuxedAccount } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStellarLedger, type LocalStellarLedger } from '../../adaptors/stellar/local-node/index.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { READ_KEY, WITHDRAW_KEY } from '../../test/helpers/service.js';

describe('signing loop on the local Stellar ledger: withdraw → quorum (ed25519) → callback → submit → CONFIRMED', () => {
  let ledger: LocalStellarLedger;
  let loop: Loop;

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    loop = await startLoop({
      stellardev: { horizonUrl: ledger.url, networkPassphrase: ledger.passphrase },
      // Same ledger with a 2-second validity window, for the expiry case.
      stellarshort: { family: 'stellar', horizonUrl: ledger.url, networkPassphrase: ledger.passphrase, timeoutSeconds: 2 },
    });
  });
  afterAll(async () => {
    await loop.stop();
    await ledger.stop();
  });

  const withdraw = (vaultId: string, body: object) => loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });
  const xlm = (id: string) => ledger.account(id)?.balance;

  it('creates a new account (create_account) and pays an existing one with a memo', async () => {
    const v = await loop.vault('stellardev');
    await ledger.fund(v.address, '100');
    const fresh = Keypair.random().publicKey();
    const created = await withdraw(v.vaultId, { recipientAddress: fresh, amount: '5', description: 'new account' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await loop.waitFor(v.vaultId, created.body.operationID, (o) => o.status === 'CONFIRMED');
    expect(xlm(fresh)).toBe(50_000_000n);

    const paid = await withdraw(v.vaultId, { recipientAddress: `${fresh}?memo=id:42`, amount: '1.5', description: 'payment with memo' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const done = await loop.waitFor(v.vaultId, paid.body.operationID, (o) => o.status === 'CONFIRMED');
    expect(done.txids[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(xlm(fresh)).toBe(65_000_000n);
  });

  it('refuses create_account below the base reserve with 422', async () => {
    const v = await loop.vault('stellardev');
    await ledger.fund(v.address, '100');
    const res = await withdraw(v.vaultId, { recipientAddress: Keypair.random().publicKey(), amount: '0.5', description: 'too small' });
    expect(res.status).toBe(422);
    expect(res.body.details).toMatch(/reserve/i);
  });

  it("refuses the vault's own account in every spelling (G…, G…?memo=, a muxed M…) with 422, reserving nothing", async () => {
    const v = await loop.vault('stellardev');
    await ledger.fund(v.address, '100');
    const muxed = new MuxedAccount(new Account(v.address, '0'), '7').accountId();
    for (const recipientAddress of [v.address, `${v.address}?memo=id:42`, muxed, `${muxed}?memo=text:x`]) {
      const res = await withdraw(v.vaultId, { recipientAddress, amount: '1', description: 'to itself' });
      expect(res.status, recipientAddress).toBe(422);
      expect(res.body).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS', field: 'recipientAddress' });
      expect(res.body.details).toContain('the vault itself');
    }
    // Nothing was reserved: the next withdrawal takes the account's next sequence number and lands.
    const ok = await withdraw(v.vaultId, { recipientAddress: Keypair.random().publicKey(), amount: '5', description: 'after refusals' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await loop.waitFor(v.vaultId, ok.body.operationID, (o) => o.status === 'CONFIRMED');
  });

  it('concurrent withdrawals from one account get distinct sequence numbers and all apply', async () => {
    const v = await loop.vault('stellardev');
    await ledger.fund(v.address, '100');
    const to = Keypair.random().publicKey();
    await ledger.fund(to, '10');
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => withdraw(v.vaultId, { recipientAddress: to, amount: `1.${i}`, description: `parallel ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const done = await Promise.all(
      results.map((r) => loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000)),
    );
    expect(done.map((o) => o.failureReason ?? o.status)).toEqual(done.map(() => 'CONFIRMED'));
    // 10 XLM to start, then 1.0 + 1.1 + 1.2 + 1.3 + 1.4 XLM.
    expect(xlm(to)).toBe(100_000_000n + 60_000_000n);
  });

  it('a payment to an account that a pending withdrawal creates is answered 409, never submitted, and goes through once it exists', async () => {
    const v = await loop.vault('stellardev');
    await ledger.fund(v.address, '100');
    const fresh = Keypair.random().publicKey();
    loop.custody.control.setFaults({ delayMs: 1000 }, v.vaultId);
    const creating = await withdraw(v.vaultId, { recipientAddress: fresh, amount: '5', description: 'creates it' });
    expect(creating.status).toBe(200);
    const before = ledger.account(v.address)!.sequence;
    const early = await withdraw(v.vaultId, { recipientAddress: fresh, amount: '2', description: 'too early' });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ errCode: 'ERR_DESTINATION_PENDING' });
    expect(early.body.details).toMatch(/pending withdrawal is creating it/);
    // Another vault's withdrawal would create it too: held for the first as well.
    const other = await loop.vault('stellardev');
    await ledger.fund(other.address, '100');
    expect((await withdraw(other.vaultId, { recipientAddress: fresh, amount: '3', description: 'other vault' })).status).toBe(409);
    loop.custody.control.setFaults({}, v.vaultId);
    await loop.waitFor(v.vaultId, creating.body.operationID, (o) => o.status === 'CONFIRMED');
    // Only the creating transaction used a sequence number.
    expect(ledger.account(v.address)!.sequence).toBe(before + 1n);
    const list = await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: READ_KEY });
    expect(list.body.totalItems).toBe(1);

    const paid = await withdraw(v.vaultId, { recipientAddress: fresh, amount: '2', description: 'after creation' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await loop.waitFor(v.vaultId, paid.body.operationID, (o) => o.status === 'CONFIRMED');
    expect(xlm(fresh)).toBe(70_000_000n);
  });

  it('a transaction whose time bounds pass while the quorum approves ends FAILED once a closed ledger proves it expired, and frees the account it was creating', async () => {
    const v = await loop.vault('stellarshort');
    await ledger.fund(v.address, '100');
    loop.custody.control.setFaults({ delayMs: 3500 }, v.vaultId);
    const fresh = Keypair.random().publicKey();
    const res = await withdraw(v.vaultId, { recipientAddress: fresh, amount: '2', description: 'too slow' });
    expect(res.status).toBe(200);
    expect((await withdraw(v.vaultId, { recipientAddress: fresh, amount: '2', description: 'held' })).status).toBe(409);
    // Horizon's tx_too_late is that node's estimate of the next close time: held open, not failed.
    const held = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.refused !== undefined, 15_000);
    expect(held.status).toBe('BROADCAST');
    expect(held.refused.answer).toMatch(/^tx_too_late: /);
    expect(held.attempts[0].refusals[0]).toMatchObject({ errCode: 'ERR_LEDGER_REJECTED', node: new URL(ledger.url).host });
    // A ledger that closes after the bound proves it can never apply.
    ledger.closeLedger();
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'FAILED', 15_000);
    expect(done.failureReason).toBe('transaction failed on the ledger: expired: time bounds passed');
    expect(done.isComplete).toBe(true);
    loop.custody.control.setFaults({}, v.vaultId);
    const again = await withdraw(v.vaultId, { recipientAddress: fresh, amount: '2', description: 'after the failure' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.appData.txs).toHaveLength(1);
  });
});
