import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account, Keypair, MuxedAccount, Transaction, xdr } from '@stellar/stellar-sdk';
import type { AssetInfo, LedgerAdaptor, UnsignedWithdrawal, WithdrawalIntent } from '../../src/ledger/adaptor.js';
import { InsufficientFundsError, InvalidArgumentError, NodeRejectionError, VerificationError } from '../../src/platform/errors.js';
import { startStellarLedger, type CreditAsset, type LocalStellarLedger } from './local-node/index.js';
import { testRedis } from '../../test/helpers/redis.js';
import { reservationKeys } from '../../src/platform/redis-keys.js';
import { signPayloads, stellarAdaptor, testKey, vaultOf, type TestKey } from './test-kit.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { publicKeyHex } from '../../src/ledger/public-key.js';

const XLM = 10_000_000n;

describe('stellar withdrawals end to end on the local ledger simulator', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger;
  let adaptor: LedgerAdaptor;
  let usdc: CreditAsset;
  let vault: TestKey;
  let refs = 0;

  const native = (): AssetInfo => adaptor.assets()[0]!;
  const usdcInfo = (): AssetInfo => adaptor.assets().find((a) => a.symbol === 'USDC')!;
  const intent = (over: Partial<WithdrawalIntent>): WithdrawalIntent => ({
    reference: `op-${++refs}`,
    recipientAddress: '',
    asset: native(),
    amount: XLM,
    fee: 'MEDIUM',
    ...over,
  });
  const nativeBalance = (id: string) => ledger.account(id)?.balance ?? 0n;
  const send = async (unsigned: UnsignedWithdrawal, key = vault) => {
    const [signed] = adaptor.combine(unsigned, signPayloads(unsigned, key));
    const result = await adaptor.broadcast(signed!);
    return { signed: signed!, result };
  };

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    vault = testKey();
    await ledger.fund(vault.address, '1000');
    usdc = await ledger.createAsset('USDC');
    adaptor = stellarAdaptor(redis, prefix, { horizonUrl: ledger.url, assets: [usdc] });
    await ledger.changeTrust(vault.keypair, usdc);
    await ledger.issue(usdc, vault.address, '500');
  });
  afterAll(async () => {
    await ledger.stop();
    redis.disconnect();
  });

  it('reports health on the standalone passphrase, and zero balances for an unknown account', async () => {
    expect(await adaptor.health()).toMatchObject({ healthy: true, network: 'Standalone Network ; February 2017' });
    const stranger = Keypair.random().publicKey();
    expect(await adaptor.getBalances([stranger], adaptor.assets())).toEqual([
      { address: stranger, asset: 'XLM', amount: 0n },
      { address: stranger, asset: 'USDC', amount: 0n },
    ]);
    const [xlm, usd] = await adaptor.getBalances([vault.address], adaptor.assets());
    expect(usd!.amount).toBe(500n * XLM);
    expect(xlm!.amount).toBe(nativeBalance(vault.address));
  });

  it('pays XLM to an existing account with a memo from the recipient form; balances move exactly', async () => {
    const dest = testKey();
    await ledger.fund(dest.address, '5');
    const before = [nativeBalance(vault.address), nativeBalance(dest.address)];
    const unsigned = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: `${dest.address}?memo=id%3A42`, amount: 12_345_678n }));
    expect(unsigned.payloads[0]).toMatchObject({ hashAlgorithm: 'SHA256', txIndex: 0, inputIndex: 0 });
    expect(unsigned.payloads[0]!.publicKey).toBe(Buffer.from(vault.publicKey.bytes).toString('hex'));
    expect(unsigned.expiresAt).toBeGreaterThan(Date.now() + 86_000_000);
    const { signed, result } = await send(unsigned);
    expect(result).toEqual({ txid: signed.txid, alreadyKnown: false });
    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed', confirmations: 1 });
    expect(nativeBalance(vault.address)).toBe(before[0]! - 12_345_678n - unsigned.fee);
    expect(nativeBalance(dest.address)).toBe(before[1]! + 12_345_678n);
    const onLedger = (await (await fetch(`${ledger.url}/transactions/${signed.txid}`)).json()) as Record<string, unknown>;
    expect([onLedger.memo_type, onLedger.memo]).toEqual(['id', '42']);
    // Rebroadcast is harmless: Horizon answers with the applied transaction.
    await expect(adaptor.broadcast(signed)).resolves.toMatchObject({ txid: signed.txid });
  });

  it('creates a missing account with create_account, and refuses one below 2 base reserves (422)', async () => {
    const fresh = Keypair.random().publicKey();
    await expect(adaptor.craft(vaultOf(vault), intent({ recipientAddress: fresh, amount: XLM - 1n }))).rejects.toBeInstanceOf(InvalidArgumentError);
    const unsigned = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: fresh, amount: 2n * XLM, memo: 'text:welcome' }));
    const op = new Transaction(xdr.TransactionEnvelope.fromXDR(unsigned.txs[0]!.serialized, 'hex'), ledger.passphrase).operations[0];
    expect(op?.type).toBe('createAccount');
    await send(unsigned);
    expect(nativeBalance(fresh)).toBe(2n * XLM);
  });

  it('pays a muxed M… address (credited to its base account)', async () => {
    const dest = testKey();
    await ledger.fund(dest.address, '2');
    const muxed = new MuxedAccount(new Account(dest.address, '0'), '9223372036854775808').accountId();
    const unsigned = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: muxed, amount: 3n }));
    await send(unsigned);
    expect(nativeBalance(dest.address)).toBe(2n * XLM + 3n);
  });

  it("refuses a payment to the vault's own account spelled G…?memo= or as its muxed M… (the craft compares accounts)", async () => {
    const muxed = new MuxedAccount(new Account(vault.address, '0'), '1').accountId();
    for (const recipientAddress of [vault.address, `${vault.address}?memo=id:1`, muxed]) {
      const err = await adaptor.craft(vaultOf(vault), intent({ recipientAddress })).catch((e) => e);
      expect(err, recipientAddress).toBeInstanceOf(InvalidArgumentError);
      expect(err.details).toContain(`pays the vault's own account ${vault.address}`);
    }
  });

  it('sends a credit asset to a trustline holder, and refuses one without the trustline (422 naming the asset)', async () => {
    const holder = testKey();
    await ledger.fund(holder.address, '10');
    await expect(adaptor.craft(vaultOf(vault), intent({ recipientAddress: holder.address, asset: usdcInfo() }))).rejects.toThrow(
      `no trustline for USDC:${usdc.issuer}`,
    );
    await ledger.changeTrust(holder.keypair, usdc);
    const xlmBefore = nativeBalance(vault.address);
    const unsigned = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: holder.address, asset: usdcInfo(), amount: 7_5000000n }));
    const { signed } = await send(unsigned);
    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed' });
    const balances = await adaptor.getBalances([vault.address, holder.address], [usdcInfo()]);
    expect(balances.map((b) => b.amount)).toEqual([492_5000000n, 7_5000000n]);
    expect(nativeBalance(vault.address)).toBe(xlmBefore - unsigned.fee);
  });

  it('names the amount bounds in XLM', async () => {
    const err = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: Keypair.random().publicKey(), amount: 0n })).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.details).toContain('between 0.0000001 and 922337203685.4775807');
  });

  it('refuses more than the spendable balance with figures', async () => {
    const err = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: Keypair.random().publicKey(), amount: 100_000n * XLM })).catch((e) => e);
    expect(err).toBeInstanceOf(InsufficientFundsError);
    expect(err.fields).toMatchObject({ asset: 'XLM', reserve: '1.5' });
  });

  it('gives concurrent crafts distinct consecutive sequence numbers that all apply in order', async () => {
    const dest = testKey();
    await ledger.fund(dest.address, '1');
    const start = ledger.account(vault.address)!.sequence;
    const crafted = await Promise.all([1n, 2n, 3n, 4n, 5n].map((n) => adaptor.craft(vaultOf(vault), intent({ recipientAddress: dest.address, amount: n }))));
    const seqs = crafted.map((u) => BigInt((u.state as { sequence: string }).sequence)).sort((a, b) => (a < b ? -1 : 1));
    expect(seqs).toEqual([1n, 2n, 3n, 4n, 5n].map((n) => start + n));
    expect(start).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    const bySeq = [...crafted].sort((a, b) => Number(BigInt((a.state as { sequence: string }).sequence) - BigInt((b.state as { sequence: string }).sequence)));
    for (const u of bySeq) await send(u);
    expect(ledger.account(vault.address)!.sequence).toBe(start + 5n);
    expect(nativeBalance(dest.address)).toBe(XLM + 15n);
  });

  it('release() gives the sequence number back to the next craft', async () => {
    const dest = Keypair.random().publicKey();
    const a = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: dest, amount: 2n * XLM }));
    await adaptor.release(a, `op-${refs}`);
    const b = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: dest, amount: 2n * XLM }));
    expect((b.state as { sequence: string }).sequence).toBe((a.state as { sequence: string }).sequence);
    await send(b);
  });

  it('release() gives the creation hold back even when the sequence cannot be given back, then throws that failure', async () => {
    const payer = testKey();
    await ledger.fund(payer.address, '100');
    const fresh = Keypair.random().publicKey();
    const a = await adaptor.craft(vaultOf(payer), intent({ recipientAddress: fresh, amount: 2n * XLM }));
    const { scope } = a.state as { scope: string };
    // The sequence's owners key of another type: Redis refuses the release (WRONGTYPE) before it writes anything.
    await redis.set(reservationKeys(prefix).sequence(scope).owners, 'not a hash');
    await expect(adaptor.release(a, `op-${refs}`)).rejects.toThrow(/WRONGTYPE/);
    // The creation hold was given back all the same: another withdrawal may create the account.
    const b = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: fresh, amount: 2n * XLM }));
    expect((b.state as { creates: string }).creates).toBe(fresh);
    await adaptor.release(b, `op-${refs}`);
  });

  it('signatures are checked once, as they come in; combine refuses another envelope and another key; the ledger rejects a bad signature (tx_bad_auth)', async () => {
    const dest = testKey();
    await ledger.fund(dest.address, '1');
    const unsigned = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: dest.address }));
    const digest = unsigned.payloads[0]!.digest;
    const good = signPayloads(unsigned, vault)[0]!;
    const corrupted = Uint8Array.from(good.signature);
    corrupted[10]! ^= 0x01;
    // The one signature check (src/ledger/signatures.ts) refuses a corrupted signature and another key's.
    expect(() => verifySignature(digest, Buffer.from(corrupted).toString('hex'), undefined, vault.publicKey)).toThrow(VerificationError);
    const stranger = testKey();
    expect(() => verifySignature(digest, stranger.signHex(digest), undefined, vault.publicKey)).toThrow(VerificationError);
    // combine: a payload of another key, with that key's good signature, does not spend from the vault.
    const ofStranger = { ...unsigned, payloads: [{ ...unsigned.payloads[0]!, publicKey: publicKeyHex(stranger.publicKey) }] };
    expect(() => adaptor.combine(ofStranger, signPayloads(ofStranger, stranger))).toThrow(/does not spend from the vault/);
    // An envelope other than the one signed (the digest of another transaction or network).
    const flipped = `${digest.slice(0, -2)}${((parseInt(digest.slice(-2), 16) ^ 1) & 0xff).toString(16).padStart(2, '0')}`;
    const otherDigest = { ...unsigned, payloads: [{ ...unsigned.payloads[0]!, digest: flipped }] };
    expect(() => adaptor.combine(otherDigest, [good])).toThrow(/does not hash to the signed digest/);
    // Nothing but 64 bytes goes into the envelope as its signature.
    expect(() => adaptor.combine(unsigned, [{ ...good, signature: good.signature.subarray(0, 63) }])).toThrow(/64 bytes/);

    // A bad signature that reached combine all the same goes in as given, and the ledger rejects it.
    const [forged] = adaptor.combine(unsigned, [{ ...good, signature: corrupted }]);
    const err = await adaptor.broadcast(forged!).catch((e) => e);
    expect(err).toBeInstanceOf(NodeRejectionError);
    expect(err.details).toMatch(/^tx_bad_auth: /);
    // Nothing was consumed: the properly signed one still applies.
    await send(unsigned);
  });

  it('a ledger-side operation failure is permanent and shows in txStatus', async () => {
    // Two crafts each pass the balance check; the first spends the USDC, so the second is
    // applied by the ledger as failed (op_underfunded), consuming its fee and sequence.
    const holder = testKey();
    await ledger.fund(holder.address, '5');
    await ledger.changeTrust(holder.keypair, usdc);
    const [usd] = await adaptor.getBalances([vault.address], [usdcInfo()]);
    const drain = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: holder.address, asset: usdcInfo(), amount: usd!.amount }));
    const late = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: holder.address, asset: usdcInfo(), amount: XLM }));
    await send(drain);
    const [signed] = adaptor.combine(late, signPayloads(late, vault));
    const err = await adaptor.broadcast(signed!).catch((e) => e);
    expect(err).toBeInstanceOf(NodeRejectionError);
    expect(err.details).toMatch(/^tx_failed \[op_underfunded\]: the source account lacks the funds/);
    expect(await adaptor.txStatus(signed!.txid, late)).toMatchObject({
      state: 'failed',
      confirmations: 1,
      reason: expect.stringMatching(/^tx_failed \[op_underfunded\]/),
    });
  });
  // Last: it moves the ledger clock a day ahead of ours.
  it('expired time bounds: broadcast says tx_too_late (which proves nothing alone) and txStatus fails with the reason, proven by a closed ledger', async () => {
    const dest = testKey();
    await ledger.fund(dest.address, '1');
    const unsigned = await adaptor.craft(vaultOf(vault), intent({ recipientAddress: dest.address }));
    const [signed] = adaptor.combine(unsigned, signPayloads(unsigned, vault));
    expect(await adaptor.txStatus(signed!.txid, unsigned)).toEqual({ state: 'unknown', confirmations: 0 });
    ledger.advanceTime(86_400 + 60);
    const err = await adaptor.broadcast(signed!).catch((e) => e);
    expect(err).toBeInstanceOf(NodeRejectionError);
    expect(err.details).toMatch(/^tx_too_late: /);
    expect(err).toMatchObject({ retryable: false, invalidForever: false });
    expect(await adaptor.txStatus(signed!.txid, unsigned)).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: 'expired: time bounds passed',
      proofConfirmations: 1,
    });
    await adaptor.release(unsigned, `op-${refs}`);
  });
});
