import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/platform/errors.js';
import type { LedgerAdaptor, UnsignedWithdrawal, VaultSource, WithdrawalIntent } from '../../src/ledger/adaptor.js';
import { startBitcoinRegtest, type BitcoinRegtest } from './local-node/index.js';
import { MAX_STANDARD_TX_WEIGHT } from './logic/tx-size.js';
import { newKey, regtestAdaptor, signAll, utxoSum, vaultOf, type TestKey } from './test-kit.js';

const BTC = { symbol: 'BTC', decimals: 8, native: true };
const COIN = 20_000n;
let seq = 0;
/**
 * bcoin checks every signature of a 1,000-input send in this process before it answers: on a
 * loaded machine that outlasts the back end's 15 s request limit, which these tests are not
 * about, so their adaptors wait as long as the test does.
 */
const patientFetch: typeof fetch = (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(240_000) });
const intent = (recipientAddress: string, amount: bigint, fee = '2'): WithdrawalIntent => ({
  reference: `utxo-${Date.now()}-${seq++}`,
  recipientAddress,
  asset: BTC,
  amount,
  fee,
});

/** Vaults of thousands of coins on a real bcoin regtest node: withdrawals and consolidations stay within the standard size. */
describe('bitcoin vaults holding thousands of coins (bcoin regtest)', () => {
  let regtest: BitcoinRegtest;
  let adaptor: LedgerAdaptor;
  /** The same ledger with the input cap above what the standard weight allows. */
  let byWeight: LedgerAdaptor;
  let close: () => void;
  let closeByWeight: () => void;
  let recipient: string;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    ({ adaptor, close } = regtestAdaptor(regtest.url, {}, { fetch: patientFetch }));
    ({ adaptor: byWeight, close: closeByWeight } = regtestAdaptor(regtest.url, { maxInputs: 5_000 }, { fetch: patientFetch }));
    recipient = adaptor.addressFromPublicKey(newKey().publicKey, 'p2wpkh');
  }, 120_000);
  afterAll(async () => {
    close();
    closeByWeight();
    await regtest?.stop();
  });

  const coinCount = async (address: string): Promise<number> => ((await (await fetch(`${regtest.url}/address/${address}/utxo`)).json()) as unknown[]).length;

  /** Signs as the custody service would, combines, and has the node take the transaction and mine it. */
  async function sendAndMine(unsigned: UnsignedWithdrawal, key: TestKey, via: LedgerAdaptor = adaptor): Promise<Transaction> {
    const [signed] = via.combine(unsigned, signAll(unsigned, [key]));
    expect(await via.broadcast(signed!)).toEqual({ txid: signed!.txid, alreadyKnown: false });
    await regtest.mine(1);
    expect(await via.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'confirmed', confirmations: 1 });
    const tx = Transaction.fromHex(signed!.serialized);
    expect(tx.weight()).toBeLessThanOrEqual(MAX_STANDARD_TX_WEIGHT);
    // The fee covers the real size at the asked rate.
    expect(unsigned.fee).toBeGreaterThanOrEqual(BigInt(tx.virtualSize() * 2));
    return tx;
  }

  it('crafts a withdrawal spending ~750 of a 2,000-coin vault that the node accepts and mines', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    await regtest.fanOut(vault.changeAddress, 2_000, COIN);
    const unsigned = await adaptor.craft(vault, intent(recipient, 15_000_000n));
    expect(unsigned.payloads.length).toBeGreaterThan(750);
    const before = await utxoSum(regtest.url, recipient);
    const tx = await sendAndMine(unsigned, key);
    expect(tx.ins).toHaveLength(unsigned.payloads.length);
    expect((await utxoSum(regtest.url, recipient)) - before).toBe(15_000_000n);
  }, 180_000);

  it('refuses a payment needing more coins than one standard transaction spends, naming the maximum, which the node then accepts', async () => {
    const key = newKey();
    const vault = vaultOf(byWeight, key, 'p2wpkh');
    await regtest.fanOut(vault.changeAddress, 1_700, COIN);
    const err = (await byWeight.craft(vault, intent(recipient, 33_000_000n)).catch((e: unknown) => e)) as InvalidArgumentError;
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.toBody()).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS', field: 'amount', feeRate: 2 });
    expect(err.details).toMatch(/at most 0\.\d+ BTC can be sent in one transaction/);
    const max = BigInt(err.fields.maxAmountBaseUnits as string);
    expect(max).toBeLessThan(33_000_000n);
    expect(err.fields.maxInputs).toBeGreaterThan(1_400);
    const unsigned = await byWeight.craft(vault, intent(recipient, max));
    expect(unsigned.payloads).toHaveLength(err.fields.maxInputs as number);
    // Near the limit (the estimate counts 73-byte signatures; most are 71-72), and standard to the node.
    const tx = await sendAndMine(unsigned, key, byWeight);
    expect(tx.weight()).toBeGreaterThan(MAX_STANDARD_TX_WEIGHT * 0.99);
  }, 240_000);

  it('consolidates a 1,600-coin vault: a withdrawal to itself spends as many coins as one sign request holds (maxInputs 1,000) into one output', async () => {
    const key = newKey();
    const vault: VaultSource = vaultOf(adaptor, key, 'p2wpkh');
    const address = vault.changeAddress;
    await regtest.fanOut(address, 1_600, COIN);
    const [before] = await adaptor.getBalances([address], [BTC]);
    const unsigned = await adaptor.craft(vault, intent(address, COIN));
    const spent = unsigned.payloads.length;
    expect(spent).toBe(1_000);
    const tx = await sendAndMine(unsigned, key);
    expect(tx.outs).toHaveLength(1);
    expect(tx.outs[0]!.value).toBe(COIN * BigInt(spent) - unsigned.fee);
    expect(await coinCount(address)).toBe(1_600 - spent + 1);
    const [after] = await adaptor.getBalances([address], [BTC]);
    expect(after!.amount).toBe(before!.amount - unsigned.fee);
    // A second round takes what is left: the vault ends with one coin.
    const second = await adaptor.craft(vault, intent(address, COIN));
    expect(second.payloads).toHaveLength(1_600 - spent + 1);
    await sendAndMine(second, key);
    expect(await coinCount(address)).toBe(1);
  }, 300_000);

  it('speeds a consolidation up from its one output (BIP125), the replacement confirmed', async () => {
    const key = newKey();
    const vault = vaultOf(adaptor, key, 'p2wpkh');
    const address = vault.changeAddress;
    await regtest.fanOut(address, 60, COIN);
    const unsigned = await adaptor.craft(vault, intent(address, COIN, '1'));
    expect(unsigned.payloads).toHaveLength(60);
    const [first] = adaptor.combine(unsigned, signAll(unsigned, [key]));
    await adaptor.broadcast(first!);
    const faster = await adaptor.replace!({ kind: 'speed-up', unsigned, signed: [first!], fee: '4', source: vault });
    expect(faster.fee).toBeGreaterThan(unsigned.fee);
    const tx = await sendAndMine(faster, key);
    expect(tx.outs).toHaveLength(1);
    expect(tx.outs[0]!.value).toBe(COIN * 60n - faster.fee);
    expect(await adaptor.txStatus(first!.txid, unsigned)).not.toMatchObject({ state: 'confirmed' });
    expect(await coinCount(address)).toBe(1);
  }, 120_000);
});
