import { address as baddress, networks, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConflictError, InsufficientFundsError, InvalidArgumentError, NodeRejectionError, VerificationError } from '../../src/platform/errors.js';
import type { LedgerAdaptor, WithdrawalIntent } from '../../src/ledger/adaptor.js';
import { formatAmount } from '../../src/ledger/amounts.js';
import type { Reservations } from '../../src/ledger/reservations.js';
import { startBitcoinRegtest, type BitcoinRegtest } from './local-node/index.js';
import { newKey, regtestAdaptor, signAll, utxoSum, vaultOf, type TestKey } from './test-kit.js';
import { otherS, verifySignature } from '../../src/ledger/signatures.js';
import { publicKeyHex } from '../../src/ledger/public-key.js';

const BTC = { symbol: 'BTC', decimals: 8, native: true };
let seq = 0;
const intent = (recipientAddress: string, amount: bigint, fee = 'MEDIUM'): WithdrawalIntent => ({
  reference: `op-${Date.now()}-${seq++}`,
  recipientAddress,
  asset: BTC,
  amount,
  fee,
});

describe('bitcoin withdrawals on a real regtest node (bcoin behind the Esplora facade)', () => {
  let regtest: BitcoinRegtest;
  let adaptor: LedgerAdaptor;
  let reservations: Reservations;
  let close: () => void;
  let recipient: string;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    ({ adaptor, reservations, close } = regtestAdaptor(regtest.url));
    recipient = adaptor.addressFromPublicKey(newKey().publicKey, 'p2wpkh');
  });
  afterAll(async () => {
    close();
    await regtest?.stop();
  });

  it('reports a healthy regtest back end', async () => {
    const h = await adaptor.health();
    expect(h).toMatchObject({ healthy: true, network: 'regtest' });
    expect(h.height).toBeGreaterThanOrEqual(432);
  });

  it('serves the dev routes and Esplora address stats', async () => {
    const key = newKey();
    const address = adaptor.addressFromPublicKey(key.publicKey, 'p2wpkh');
    expect(await adaptor.addressesUsed!([address])).toEqual([false]);
    const post = (path: string, body: unknown) =>
      fetch(`${regtest.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { txid } = (await (await post('/dev/faucet', { address, amountSats: 12_345 })).json()) as { txid: string };
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    const mined = (await (await post('/dev/mine', { blocks: 2 })).json()) as { blocks: string[]; height: number };
    expect(mined.blocks).toHaveLength(2);
    const stats = (await (await fetch(`${regtest.url}/address/${address}`)).json()) as { chain_stats: { funded_txo_sum: number; tx_count: number } };
    expect(stats.chain_stats).toMatchObject({ funded_txo_sum: 12_345, tx_count: 1 });
    expect(await adaptor.addressesUsed!([address])).toEqual([true]);
    expect((await adaptor.txStatus(txid, {} as never)).confirmations).toBe(3);
    const bad = await fetch(`${regtest.url}/tx`, { method: 'POST', body: 'zz' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('sendrawtransaction RPC error: {"code":-22,"message":"TX decode failed"}');
  });

  async function withdraw(key: TestKey, format: string, to: string, amount: bigint) {
    const vault = vaultOf(adaptor, key, format);
    const funded = 1_000_000n;
    await regtest.faucet(vault.addresses[0]!.address, funded);
    const unsigned = await adaptor.craft(vault, intent(to, amount));
    expect(unsigned.payloads.every((p) => p.hashAlgorithm === 'DOUBLE_SHA256' && p.keyId === key.keyId)).toBe(true);
    const [signed] = adaptor.combine(unsigned, signAll(unsigned, [key]));
    expect(await adaptor.broadcast(signed!)).toEqual({ txid: signed!.txid, alreadyKnown: false });
    expect((await adaptor.txStatus(signed!.txid, unsigned)).state).toBe('pending');
    await regtest.mine(1);
    expect(await adaptor.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'confirmed', confirmations: 1 });
    // Fee = inputs − outputs of the transaction the node accepted, and covers its real size.
    const tx = Transaction.fromHex(signed!.serialized);
    const outSum = tx.outs.reduce((s, o) => s + o.value, 0n);
    expect(funded - outSum).toBe(unsigned.fee);
    const feeRate = (unsigned.state as { feeRate: number }).feeRate;
    expect(unsigned.fee).toBeGreaterThanOrEqual(BigInt(tx.virtualSize() * feeRate));
    expect(unsigned.fee).toBeLessThanOrEqual(BigInt((tx.virtualSize() + 10) * feeRate));
    const [balance] = await adaptor.getBalances([vault.changeAddress], [BTC]);
    expect(balance!.amount).toBe(funded - amount - unsigned.fee);
    return { tx, unsigned, signed: signed! };
  }

  for (const format of ['p2wpkh', 'p2sh-p2wpkh', 'p2pkh']) {
    it(`withdraws from a ${format} vault: craft, sign, combine, broadcast, confirm`, async () => {
      const before = await utxoSum(regtest.url, recipient);
      const { tx } = await withdraw(newKey(), format, recipient, 123_456n);
      expect(tx.ins.every((i) => i.sequence === 0xfffffffd)).toBe(true);
      expect(format === 'p2pkh' ? tx.hasWitnesses() : tx.ins.every((i) => i.witness.length === 2)).toBe(format !== 'p2pkh');
      expect((await utxoSum(regtest.url, recipient)) - before).toBe(123_456n);
    });
  }

  it('pays a Taproot (P2TR) recipient', async () => {
    const xonly = (ecc.pointFromScalar(newKey().priv, true) as Uint8Array).subarray(1);
    const p2tr = baddress.toBech32(xonly, 1, 'bcrt');
    expect(adaptor.isValidAddress(p2tr)).toBe(true);
    const { tx } = await withdraw(newKey(), 'p2wpkh', p2tr, 70_000n);
    expect(Buffer.from(tx.outs[0]!.script).toString('hex')).toBe(`5120${Buffer.from(xonly).toString('hex')}`);
    expect(await utxoSum(regtest.url, p2tr)).toBe(70_000n);
  });

  it('spends from several addresses of one vault, each input signed by its own key', async () => {
    const [k1, k2] = [newKey(), newKey()];
    const a1 = adaptor.addressFromPublicKey(k1.publicKey, 'p2wpkh');
    const a2 = adaptor.addressFromPublicKey(k2.publicKey, 'p2pkh');
    await regtest.faucet(a1, 60_000);
    await regtest.faucet(a2, 60_000);
    const vault = {
      vaultId: 'bip44',
      addresses: [
        { address: a1, publicKey: k1.publicKey, keyId: k1.keyId, path: '0/0' },
        { address: a2, publicKey: k2.publicKey, keyId: k2.keyId, path: '0/1' },
      ],
      changeAddress: a1,
    };
    const unsigned = await adaptor.craft(vault, intent(recipient, 100_000n, '3'));
    expect(new Set(unsigned.payloads.map((p) => p.keyId))).toEqual(new Set([k1.keyId, k2.keyId]));
    const [signed] = adaptor.combine(unsigned, signAll(unsigned, [k1, k2]));
    expect((await adaptor.broadcast(signed!)).alreadyKnown).toBe(false);
    await regtest.mine(1);
    expect((await adaptor.txStatus(signed!.txid, unsigned)).state).toBe('confirmed');
  });

  it('refuses an amount under the dust threshold, in BTC with the satoshis beside', async () => {
    const vault = vaultOf(adaptor, newKey(), 'p2wpkh');
    const err = (await adaptor.craft(vault, intent(recipient, 100n)).catch((e: unknown) => e)) as InvalidArgumentError;
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.details).toContain('amount 0.000001 BTC is below the dust threshold');
    expect(err.fields.dustThreshold).toBe(formatAmount(BigInt(err.fields.dustThresholdBaseUnits as string), 8));
  });

  it('refuses a withdrawal the vault cannot pay, with the figures (422)', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    await regtest.faucet(vault.changeAddress, 50_000);
    const err = await adaptor.craft(vault, intent(recipient, 49_990n)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientFundsError);
    const e = err as InsufficientFundsError;
    expect(e.status).toBe(422);
    // Asset units like every amount on the wire; the exact satoshis beside them.
    expect(e.fields).toMatchObject({ asset: 'BTC', available: '0.0005', availableBaseUnits: '50000', feeAsset: 'BTC' });
    expect(BigInt(e.fields.requiredBaseUnits as string)).toBe(49_990n + BigInt(e.fields.feeBaseUnits as string));
    expect(BigInt(e.fields.feeBaseUnits as string)).toBeGreaterThan(0n);
    expect(e.fields.fee).toBe(formatAmount(BigInt(e.fields.feeBaseUnits as string), 8));
    expect(e.details).toContain('0.0005 BTC available');
  });

  it('never gives one coin to two concurrent withdrawals, and release frees them', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    for (let i = 0; i < 6; i++) await regtest.faucet(vault.changeAddress, 100_000);
    const intents = Array.from({ length: 5 }, () => intent(recipient, 60_000n));
    const crafted = await Promise.all(intents.map((it) => adaptor.craft(vault, it)));
    const spent = crafted.flatMap((u) => (u.state as { reserved: string[] }).reserved);
    expect(spent).toHaveLength(5);
    expect(new Set(spent).size).toBe(5);
    // A sixth asks for more than the one free coin can pay: the others are held.
    await expect(adaptor.craft(vault, intent(recipient, 150_000n))).rejects.toMatchObject({
      fields: { available: '0.001', reservedByOtherWithdrawals: '0.005' },
    });
    await Promise.all(crafted.map((u, i) => adaptor.release(u, intents[i]!.reference)));
    expect(await reservations.claimedBy('btcregtest', spent)).toEqual([null, null, null, null, null]);
  });

  it("one vault's concurrent withdrawals in one process take turns at the coins: each claims once, none gives up", async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    for (let i = 0; i < 24; i++) await regtest.faucet(vault.changeAddress, 100_000);
    const claim = vi.spyOn(reservations, 'claim');
    try {
      const intents = Array.from({ length: 24 }, () => intent(recipient, 60_000n));
      const crafted = await Promise.allSettled(intents.map((it) => adaptor.craft(vault, it)));
      expect(crafted.filter((c) => c.status === 'rejected')).toEqual([]);
      const spent = crafted.flatMap((c) => (c.status === 'fulfilled' ? (c.value.state as { reserved: string[] }).reserved : []));
      expect(new Set(spent).size).toBe(24);
      // Side by side, all 24 chose the same coin from the same listing and 23 selected again.
      expect(claim).toHaveBeenCalledTimes(24);
      await Promise.all(crafted.map((c, i) => (c.status === 'fulfilled' ? adaptor.release(c.value, intents[i]!.reference) : undefined)));
    } finally {
      claim.mockRestore();
    }
  });

  it('signatures are checked once, as they come in; combine refuses another transaction, another key and a high s; the node rejects a bad signature', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    await regtest.faucet(vault.changeAddress, 200_000);
    const unsigned = await adaptor.craft(vault, intent(recipient, 50_000n));
    const payload = unsigned.payloads[0]!;
    const sigs = signAll(unsigned, [key]);
    const corrupted = Uint8Array.from(sigs[0]!.signature);
    corrupted[5]! ^= 0x01;
    // The one signature check (src/ledger/signatures.ts) refuses a corrupted signature and another key's.
    expect(() => verifySignature(payload.digest, Buffer.from(corrupted).toString('hex'), 0, key.publicKey)).toThrow(VerificationError);
    const stranger = newKey();
    const byStranger = Buffer.from(ecc.sign(Buffer.from(payload.digest, 'hex'), stranger.priv)).toString('hex');
    expect(() => verifySignature(payload.digest, byStranger, 0, key.publicKey)).toThrow(VerificationError);
    // combine: a payload of another key is not the input's; a changed state is not the transaction stored and signed.
    const ofStranger = { ...unsigned, payloads: [{ ...payload, publicKey: publicKeyHex(stranger.publicKey), keyId: stranger.keyId }] };
    expect(() => adaptor.combine(ofStranger, signAll(ofStranger, [stranger]))).toThrow(/payload of input 0 does not match the transaction/);
    const state = unsigned.state as { outputs: { value: string }[] };
    const tampered = { ...unsigned, state: { ...state, outputs: state.outputs.map((o, i) => (i === 0 ? { ...o, value: String(BigInt(o.value) + 1n) } : o)) } };
    expect(() => adaptor.combine(tampered, sigs)).toThrow(/does not match the stored craft state/);
    // A high s (non-standard on Bitcoin) never goes into the transaction.
    expect(() => adaptor.combine(unsigned, [{ ...sigs[0]!, signature: otherS(sigs[0]!.signature) }])).toThrow(/low s/);

    // A bad signature that reached combine all the same goes in as given, and the node rejects the transaction.
    const [forged] = adaptor.combine(unsigned, [{ ...sigs[0]!, signature: corrupted }]);
    const err = await adaptor.broadcast(forged!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeRejectionError);
    expect(err).toMatchObject({ kind: 'non_standard', retryable: false });
    expect((err as Error).message).toMatch(/script-verify|signature/i);
    // Nothing was spent: the properly signed one is taken.
    const [signed] = adaptor.combine(unsigned, sigs);
    expect(await adaptor.broadcast(signed!)).toMatchObject({ txid: signed!.txid });
  });

  it('treats a repeated broadcast as already known, in the mempool and once mined', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2sh-p2wpkh');
    await regtest.faucet(vault.changeAddress, 300_000);
    const unsigned = await adaptor.craft(vault, intent(recipient, 10_000n, 'HIGH'));
    const [signed] = adaptor.combine(unsigned, signAll(unsigned, [key]));
    expect((await adaptor.broadcast(signed!)).alreadyKnown).toBe(false);
    expect(await adaptor.broadcast(signed!)).toEqual({ txid: signed!.txid, alreadyKnown: true });
    await regtest.mine(1);
    expect(await adaptor.broadcast(signed!)).toEqual({ txid: signed!.txid, alreadyKnown: true });
  });

  it('counts a resend of its own transaction as sent once it is mined and every output spent since (the node answers "inputs missing")', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    const own = vault.changeAddress;
    await regtest.faucet(own, 1_000_000n);
    // A consolidation: one output, no change; mined.
    const u1 = await adaptor.craft(vault, intent(own, 100_000n, '2'));
    const [s1] = adaptor.combine(u1, signAll(u1, [key]));
    await adaptor.broadcast(s1!);
    // A cancel of it, never sent: another transaction of the same coin, which the node never had.
    const c1 = await adaptor.replace!({ kind: 'cancel', unsigned: u1, signed: [s1!], fee: '20', source: vault });
    const [cs1] = adaptor.combine(c1, signAll(c1, [key]));
    await regtest.mine(1);
    // The next withdrawal spends that one output; mined too. The node now says "missingorspent", not "already in utxo set".
    const u2 = await adaptor.craft(vault, intent(recipient, 500_000n, '2'));
    expect((u2.state as { inputs: { txid: string }[] }).inputs.map((i) => i.txid)).toEqual([s1!.txid]);
    const [s2] = adaptor.combine(u2, signAll(u2, [key]));
    await adaptor.broadcast(s2!);
    await regtest.mine(1);
    // The first send's answer was lost: its broadcast job sends the same bytes again.
    expect(await adaptor.broadcast(s1!).catch((e: unknown) => e)).toEqual({ txid: s1!.txid, alreadyKnown: true });
    // The same answer for a transaction the back end never had stays a refusal.
    expect(await adaptor.broadcast(cs1!).catch((e: unknown) => e)).toMatchObject({ kind: 'missing_inputs', retryable: false });
  });

  it("consolidates to the vault's own address spelled in upper case (BIP173 allows it): the same output script, one output, no change", async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    const own = vault.changeAddress;
    await regtest.faucet(own, 300_000n);
    await regtest.faucet(own, 300_000n);
    const toItself = intent(own.toUpperCase(), 100_000n, '2');
    const unsigned = await adaptor.craft(vault, toItself);
    const tx = Transaction.fromHex(unsigned.txs[0]!.serialized);
    expect(tx.ins).toHaveLength(2);
    expect(tx.outs).toHaveLength(1);
    expect(baddress.fromOutputScript(tx.outs[0]!.script, networks.regtest)).toBe(own);
    expect(BigInt(tx.outs[0]!.value)).toBe(600_000n - unsigned.fee);
    await adaptor.release(unsigned, toItself.reference);
  });

  it('counts own unconfirmed change but not unconfirmed deposits from others', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    await regtest.faucet(vault.changeAddress, 500_000);
    const unsigned = await adaptor.craft(vault, intent(recipient, 100_000n));
    const [signed] = adaptor.combine(unsigned, signAll(unsigned, [key]));
    await adaptor.broadcast(signed!);
    const [b] = await adaptor.getBalances([vault.changeAddress], [BTC]);
    expect(b!.amount).toBe(400_000n - unsigned.fee);
    // An unconfirmed payment from a stranger: not counted until mined.
    const otherKey = newKey();
    const other = vaultOf(adaptor, otherKey, 'p2wpkh');
    await regtest.faucet(other.changeAddress, 100_000);
    const u2 = await adaptor.craft(other, intent(vault.changeAddress, 20_000n));
    const [s2] = adaptor.combine(u2, signAll(u2, [otherKey]));
    await adaptor.broadcast(s2!);
    const [b2] = await adaptor.getBalances([vault.changeAddress], [BTC]);
    expect(b2!.amount).toBe(400_000n - unsigned.fee);
    await regtest.mine(1);
    const [b3] = await adaptor.getBalances([vault.changeAddress], [BTC]);
    expect(b3!.amount).toBe(420_000n - unsigned.fee);
  });

  /** W1 at 1 sat/vB in the mempool, and W2 spending W1's unconfirmed change (the own-change rule allows it). */
  async function spendingUnconfirmedChange() {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    await regtest.faucet(vault.changeAddress, 1_000_000n);
    const u1 = await adaptor.craft(vault, intent(recipient, 100_000n, '1'));
    const [s1] = adaptor.combine(u1, signAll(u1, [key]));
    await adaptor.broadcast(s1!);
    const spend = async () => {
      const u2 = await adaptor.craft(vault, intent(recipient, 200_000n, '1'));
      expect((u2.state as { inputs: { txid: string }[] }).inputs.map((i) => i.txid)).toEqual([s1!.txid]);
      const [s2] = adaptor.combine(u2, signAll(u2, [key]));
      await adaptor.broadcast(s2!);
      return { u2, s2: s2! };
    };
    return { key, vault, u1, s1: s1!, spend };
  }
  const mempool = () => (regtest.node.node as unknown as { mempool: { evictEntry(e: unknown): void; getEntry(h: string): unknown } }).mempool;
  const known = async (txid: string) => (await fetch(`${regtest.url}/tx/${txid}/hex`)).status === 200;

  it('refuses to speed up or cancel a transaction whose change another withdrawal spends (409 naming it), and evicts nothing', async () => {
    const { vault, u1, s1, spend } = await spendingUnconfirmedChange();
    const { u2, s2 } = await spend();
    for (const kind of ['speed-up', 'cancel'] as const) {
      const err = await adaptor.replace!({ kind, unsigned: u1, signed: [s1], fee: '20', source: vault }).catch((e: unknown) => e);
      expect(err, `${kind} must be refused`).toBeInstanceOf(ConflictError);
      expect(err).toMatchObject({ status: 409, errCode: 'ERR_NOT_REPLACEABLE' });
      expect((err as Error).message).toContain(`${s1.txid}:1 by ${s2.txid}`);
    }
    expect(await adaptor.txStatus(s2.txid, u2)).toMatchObject({ state: 'pending' });
    await regtest.mine(1);
    expect(await adaptor.txStatus(s2.txid, u2)).toMatchObject({ state: 'confirmed' });
  });

  it('fails a withdrawal whose input came from a transaction replaced after it was sent: that input no longer exists', async () => {
    const { key, vault, u1, s1, spend } = await spendingUnconfirmedChange();
    // The speed-up is built (and signed) while nothing spends W1's change yet; W2 comes meanwhile.
    const r1 = await adaptor.replace!({ kind: 'speed-up', unsigned: u1, signed: [s1], fee: '20', source: vault });
    const [rs1] = adaptor.combine(r1, signAll(r1, [key]));
    const { u2, s2 } = await spend();
    await adaptor.broadcast(rs1!);
    expect(await known(s2.txid)).toBe(false);
    await regtest.mine(1);
    const st = await adaptor.txStatus(s2.txid, u2).catch((e: unknown) => `threw: ${(e as Error).message}`);
    expect(st).toMatchObject({ state: 'failed', reason: expect.stringContaining(`its input ${s1.txid}:1 no longer exists`) });
    expect((st as { reason: string }).reason).toContain(`spent by ${rs1!.txid}`);
    expect(st).not.toHaveProperty('spentBy');
  });

  it('keeps a withdrawal whose parent transaction was only dropped unknown (sent again later), not failed: the parent may still be mined', async () => {
    const { s1, spend } = await spendingUnconfirmedChange();
    const { u2, s2 } = await spend();
    // Evicted from the node's mempool with its child, as from a full mempool: W1's own withdrawal sends it again.
    mempool().evictEntry(mempool().getEntry(Buffer.from(s1.txid, 'hex').reverse().toString('hex')));
    expect([await known(s1.txid), await known(s2.txid)]).toEqual([false, false]);
    expect(await adaptor.txStatus(s2.txid, u2)).toMatchObject({ state: 'unknown' });
    await adaptor.broadcast(s1);
    await adaptor.broadcast(s2);
    expect(await adaptor.txStatus(s2.txid, u2)).toMatchObject({ state: 'pending' });
    await regtest.mine(1);
  });
});
