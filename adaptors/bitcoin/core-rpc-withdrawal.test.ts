import { address as baddress, networks, payments, script as bscript, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/ledger/amounts.js';
import type { LedgerAdaptor, WithdrawalIntent } from '../../src/ledger/adaptor.js';
import { NodeRejectionError } from '../../src/platform/errors.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { READ_KEY, WITHDRAW_KEY } from '../../test/helpers/service.js';
import { startBitcoinRegtest, type BitcoinRegtest } from './local-node/index.js';
import { CoreRpcBackend, type CoreRpcError } from './network/core-rpc.js';
import { newKey, regtestAdaptor, signAll, vaultOf, type TestKey } from './test-kit.js';

const RECIPIENT = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const BTC = { symbol: 'BTC', decimals: 8, native: true };

/** A P2WPKH spend of one coin of `key` that does not signal BIP125 replacement (sequence 0xffffffff), signed here. */
function finalSpend(key: TestKey, coin: { txid: string; vout: number; sats: bigint }, to: string, fee: bigint): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  tx.addInput(Buffer.from(coin.txid, 'hex').reverse(), coin.vout, 0xffffffff);
  tx.addOutput(baddress.toOutputScript(to, networks.regtest), coin.sats - fee);
  const pubkey = key.publicKey.bytes;
  const digest = tx.hashForWitnessV0(0, payments.p2pkh({ pubkey }).output!, coin.sats, Transaction.SIGHASH_ALL);
  tx.setWitness(0, [bscript.signature.encode(ecc.sign(digest, key.priv), Transaction.SIGHASH_ALL), pubkey]);
  return tx;
}

/**
 * The Bitcoin Core JSON-RPC back end (network/core-rpc.ts) against a real node: bcoin regtest
 * behind the Core RPC facade (local-node/core-rpc-facade.ts), no Esplora anywhere. Blocks are
 * mined by the tests only, so what holds while a transaction is unconfirmed can be seen.
 */
describe('withdrawals through the Bitcoin Core RPC back end (bcoin regtest behind the Core RPC facade)', () => {
  let regtest: BitcoinRegtest;
  let loop: Loop;
  let core: CoreRpcBackend;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    loop = await startLoop({ btcregtest: { backend: 'core', url: regtest.coreRpcUrl, confirmations: 1 } });
    core = new CoreRpcBackend(regtest.coreRpcUrl, fetch, () => '');
  });
  afterAll(async () => {
    await loop?.stop();
    await regtest?.stop();
  });

  const withdraw = (vaultId: string, body: object) => loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });
  const balance = async (address: string): Promise<bigint> => {
    const res = await loop.svc.call('GET', `/api/v1.0/ledgers/btcregtest/addresses/${address}/balance`, { key: READ_KEY });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const text = res.body.balances[0].amount as string;
    return text === '0' ? 0n : parseAmount(text, 8);
  };
  /** The address's confirmed coins as Core's scantxoutset lists them, amounts in satoshis. */
  const scan = async (address: string) => {
    const r = await core.call<{ unspents: { txid: string; vout: number; amount: string; height: number }[]; total_amount: string }>('scantxoutset', [
      'start',
      [`addr(${address})`],
    ]);
    return r.unspents.map((u) => ({ txid: u.txid, vout: u.vout, sats: parseAmount(u.amount, 8), height: u.height }));
  };

  it('reports the ledger healthy through Core RPC: the regtest genesis, the height, a synced txindex', async () => {
    expect(await loop.svc.core.registry.get('btcregtest').health()).toEqual({ healthy: true, network: 'regtest', height: regtest.node.height });
  });

  it('withdraws to CONFIRMED; while unconfirmed the change is not counted (scantxoutset sees confirmed coins only), once mined it is', async () => {
    const v = await loop.vault('btcregtest');
    const funding = await regtest.faucet(v.address, 100_000_000n);
    expect(await scan(v.address)).toEqual([{ txid: funding, vout: 0, sats: 100_000_000n, height: regtest.node.height }]);
    expect(await balance(v.address)).toBe(100_000_000n);
    const before = await balance(RECIPIENT);

    const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.12345678', description: 'through Core RPC', fee: '5' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sent = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST' || o.status === 'FAILED');
    expect(sent.status, sent.failureReason).toBe('BROADCAST');
    const txid = sent.txids[0] as string;
    const tx = Transaction.fromHex(await core.call<string>('getrawtransaction', [txid, 0]));
    expect(tx.outs.map((o) => BigInt(o.value))).toContain(12_345_678n);
    const changeVout = tx.outs.findIndex((o) => BigInt(o.value) !== 12_345_678n);
    const change = BigInt(tx.outs[changeVout]!.value);

    // In the mempool: the funding coin is spent there (gettxout with the mempool: null), its change is in no block yet.
    expect(await core.call('gettxout', [funding, 0, true])).toBeNull();
    expect(await core.call('gettxout', [funding, 0, false])).not.toBeNull();
    expect(await scan(v.address)).toHaveLength(1);
    expect(await balance(v.address)).toBe(0n);
    expect(await balance(RECIPIENT)).toBe(before);
    const meanwhile = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.1', description: 'spends the change before it is mined' });
    expect(meanwhile.status).toBe(422);
    expect(meanwhile.body).toMatchObject({ errCode: 'ERR_INSUFFICIENT_FUNDS', availableBaseUnits: '0' });

    await regtest.mine(1);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect(await scan(v.address)).toEqual([{ txid, vout: changeVout, sats: change, height: regtest.node.height }]);
    expect(await balance(v.address)).toBe(change);
    expect((await balance(RECIPIENT)) - before).toBe(12_345_678n);
    // What the vault paid: the amount and the fee, the fee at the 5 sat/vB asked.
    const fee = 100_000_000n - 12_345_678n - change;
    expect(fee).toBeGreaterThanOrEqual(BigInt(tx.virtualSize() * 5));
    expect(fee).toBeLessThanOrEqual(BigInt((tx.virtualSize() + 10) * 5));
  });

  describe('refusals as Core words them, through the adaptor', () => {
    let adaptor: LedgerAdaptor;
    let close: () => void;
    beforeAll(() => {
      ({ adaptor, close } = regtestAdaptor(regtest.coreRpcUrl, { backend: 'core' }));
    });
    afterAll(() => close());
    let seq = 0;
    const intent = (amount: bigint, fee: string): WithdrawalIntent => ({ reference: `core-${seq++}`, recipientAddress: RECIPIENT, asset: BTC, amount, fee });

    it('a double spend paying less than the transaction it would replace: -26, not replaced', async () => {
      const key = newKey();
      const vault = vaultOf(adaptor, key, 'p2wpkh');
      await regtest.faucet(vault.changeAddress, 1_000_000n);
      // Two transactions of the same coin, as two services with their own reservations would build them.
      const [i1, i2] = [intent(100_000n, '10'), intent(200_000n, '2')];
      const first = await adaptor.craft(vault, i1);
      await adaptor.release(first, i1.reference);
      const second = await adaptor.craft(vault, i2);
      const inputs = (u: typeof first) => (u.state as { inputs: { txid: string; vout: number }[] }).inputs;
      expect(inputs(second)).toEqual(inputs(first));
      const [s1] = adaptor.combine(first, signAll(first, [key]));
      const [s2] = adaptor.combine(second, signAll(second, [key]));
      await adaptor.broadcast(s1!);
      const err = await adaptor.broadcast(s2!).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NodeRejectionError);
      expect(err).toMatchObject({ kind: 'rbf_rule', retryable: false, fields: { nodeCode: -26 } });
      expect((err as Error).message).toContain(`insufficient fee, rejecting replacement ${s2!.txid}`);
      expect(await adaptor.txStatus(s1!.txid, first)).toMatchObject({ state: 'pending' });
      await adaptor.release(second, i2.reference);
      await regtest.mine(1);
      expect(await adaptor.txStatus(s1!.txid, first)).toMatchObject({ state: 'confirmed', confirmations: 1 });
    });

    it('a double spend of a coin a transaction not signalling replacement holds in the mempool: -26 txn-mempool-conflict', async () => {
      const key = newKey();
      const vault = vaultOf(adaptor, key, 'p2wpkh');
      await regtest.faucet(vault.changeAddress, 1_000_000n);
      const [coin] = await scan(vault.changeAddress);
      const i1 = intent(100_000n, '5');
      const ours = await adaptor.craft(vault, i1);
      const [signed] = adaptor.combine(ours, signAll(ours, [key]));
      // Meanwhile the same coin leaves in a transaction of the same key made elsewhere, without the BIP125 signal.
      const other = finalSpend(key, coin!, RECIPIENT, 1_000n);
      expect(await core.call('sendrawtransaction', [other.toHex()])).toBe(other.getId());
      const err = await adaptor.broadcast(signed!).catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'inputs_conflict', retryable: false, fields: { nodeCode: -26 } });
      expect((err as Error).message).toMatch(new RegExp(`refused ${signed!.txid}: txn-mempool-conflict`));
      await adaptor.release(ours, i1.reference);
      await regtest.mine(1);
      expect(await core.call('gettxout', [other.getId(), 0, false])).not.toBeNull();
    });

    it('a transaction whose input a mined transaction spent: -25 missing inputs, and its own resend already known', async () => {
      const key = newKey();
      const vault = vaultOf(adaptor, key, 'p2wpkh');
      await regtest.faucet(vault.changeAddress, 1_000_000n);
      const u1 = await adaptor.craft(vault, intent(100_000n, '2'));
      const [s1] = adaptor.combine(u1, signAll(u1, [key]));
      // A cancel of it, signed but never sent, then the original mined.
      const c1 = await adaptor.replace!({ kind: 'cancel', unsigned: u1, signed: [s1!], fee: '20', source: vault });
      const [cs1] = adaptor.combine(c1, signAll(c1, [key]));
      await adaptor.broadcast(s1!);
      await regtest.mine(1);
      const err = await adaptor.broadcast(cs1!).catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'missing_inputs', retryable: false, fields: { nodeCode: -25 } });
      expect((err as Error).message).toContain('bad-txns-inputs-missingorspent');
      // The original again: its outputs are in the UTXO set (Core's -27), which is "already known".
      expect(await adaptor.broadcast(s1!)).toEqual({ txid: s1!.txid, alreadyKnown: true });
      await adaptor.release(c1, '');
    });
  });

  it("answers Core's errors for what it does not have: -5 unknown transaction and block, -8 height out of range, -32601 method", async () => {
    const errorOf = (method: string, params: unknown[]) => core.call(method, params).catch((e: unknown) => e as CoreRpcError);
    expect(await errorOf('getrawtransaction', ['00'.repeat(32), true])).toMatchObject({
      rpcCode: -5,
      rpcMessage: 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.',
    });
    expect(await errorOf('getblock', ['00'.repeat(32), 2])).toMatchObject({ rpcCode: -5, rpcMessage: 'Block not found' });
    expect(await errorOf('getblockhash', [regtest.node.height + 1])).toMatchObject({ rpcCode: -8, rpcMessage: 'Block height out of range' });
    expect(await errorOf('getbalances', [])).toMatchObject({ rpcCode: -32601, rpcMessage: 'Method not found' });
  });

  it('answers getblock 2 with fees and 3 with prevouts; a block invalidateblock took away is one bcoin forgot (-5), its height the new tip', async () => {
    const paid = await regtest.faucet(RECIPIENT, 10_000n);
    const hash = await core.call<string>('getblockhash', [regtest.node.height]);
    type Block = { confirmations: number; tx: { txid: string; fee?: string; vin: { prevout?: unknown }[] }[] };
    const two = await core.call<Block>('getblock', [hash, 2]);
    expect(two.confirmations).toBe(1);
    expect(two.tx[1]).toMatchObject({ txid: paid, fee: expect.stringMatching(/^0\.\d{8}$/) });
    expect(two.tx[1]!.vin[0]!.prevout).toBeUndefined();
    const three = await core.call<Block>('getblock', [hash, 3]);
    expect(three.tx[1]).toMatchObject({ txid: paid, vin: [{ prevout: { generated: true, value: '50.00000000' } }] });
    // Core would keep the block and count it -1; bcoin's invalidateblock drops it and its descendants.
    await regtest.invalidate(hash);
    expect(await core.call('getblock', [hash, 3]).catch((e: unknown) => e)).toMatchObject({ rpcCode: -5, rpcMessage: 'Block not found' });
    const [next] = await regtest.mine(1);
    expect(await core.call('getblockhash', [regtest.node.height])).toBe(next);
  });
});
