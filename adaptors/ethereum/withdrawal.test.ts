import { keccak256, Transaction } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VerificationError } from '../../src/platform/errors.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { publicKeyHex } from '../../src/ledger/public-key.js';
import { otherS, verifySignature } from '../../src/ledger/signatures.js';
import { ethBalance, intent, newKey, sign, signUnchecked, startHarness, waitReceipt, type Harness, type TestKey } from './test-kit.js';

const ETH = 10n ** 18n;

describe('ethereum withdrawals end to end on a real anvil node', () => {
  let h: Harness;
  let adaptor: LedgerAdaptor;
  let key: TestKey;

  beforeAll(async () => {
    h = await startHarness();
    adaptor = h.adaptor();
    key = newKey(adaptor);
    await h.chain.funder.sendEth(key.address, 10n * ETH);
    await h.chain.funder.sendToken(h.chain.token.contract, key.address, 1_000_000_000n);
  });
  afterAll(() => h.close());

  async function sendAndCheck(a: LedgerAdaptor, i: ReturnType<typeof intent>, opts: { highS?: boolean } = {}) {
    const unsigned = await a.craft(key.source, i);
    const [signed] = a.combine(unsigned, sign(unsigned, key, opts));
    const sent = await a.broadcast(signed!);
    expect(sent).toEqual({ txid: signed!.txid, alreadyKnown: false });
    const receipt = await waitReceipt(h, sent.txid);
    return { unsigned, signed: signed!, receipt, paid: BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) };
  }

  it('sends ETH (type 2): recipient gets the amount, sender pays amount + gas used × effective price', async () => {
    const before = await ethBalance(h, key.address);
    const i = intent(adaptor, { amount: 1_234_567_890_000_000n });
    const { unsigned, signed, receipt, paid } = await sendAndCheck(adaptor, i);

    expect(unsigned.payloads[0]).toMatchObject({ keyId: key.source.addresses[0]!.keyId, hashAlgorithm: 'SHA3_256', txIndex: 0, inputIndex: 0 });
    expect(unsigned.payloads[0]!.digest).toBe(keccak256(`0x${unsigned.payloads[0]!.preimage}`).slice(2));
    expect(unsigned.txs[0]!.serialized).toMatch(/^02[0-9a-f]+$/);
    const decoded = Transaction.from(signed.serialized);
    expect(decoded).toMatchObject({ type: 2, chainId: 31337n, from: key.address, value: i.amount, gasLimit: 21000n });
    expect(unsigned.fee).toBe(21000n * decoded.maxFeePerGas!);
    expect(BigInt(receipt.status)).toBe(1n);
    expect(await ethBalance(h, i.recipientAddress)).toBe(i.amount);
    expect(before - (await ethBalance(h, key.address))).toBe(i.amount + paid);

    const status = await adaptor.txStatus(signed.txid, unsigned);
    expect(status).toMatchObject({ state: 'confirmed', confirmations: 1, blockHeight: Number(BigInt(receipt.blockNumber)) });
    await h.chain.funder.sendEth(i.recipientAddress, 1n); // one more block
    expect((await adaptor.txStatus(signed.txid, unsigned)).confirmations).toBe(2);
  });

  it('sends an ERC-20: transfer(recipient, amount) to the contract, value 0, gas with margin', async () => {
    const [eth, demo] = adaptor.assets();
    const beforeEth = await ethBalance(h, key.address);
    const i = intent(adaptor, { asset: demo!, amount: 12_345_678n });
    const { signed, receipt, paid } = await sendAndCheck(adaptor, i);
    const decoded = Transaction.from(signed.serialized);
    expect(decoded.to).toBe(h.chain.token.contract);
    expect(decoded.value).toBe(0n);
    expect(decoded.gasLimit).toBeGreaterThan(BigInt(receipt.gasUsed));
    const balances = await adaptor.getBalances([i.recipientAddress, key.address], [eth!, demo!]);
    expect(balances.map((b) => b.amount)).toEqual([0n, 12_345_678n, beforeEth - paid, 1_000_000_000n - 12_345_678n]);
  });

  it('legacy fee mode builds an EIP-155 type-0 transaction with a gasPrice', async () => {
    const legacy = h.adaptor({ feeMode: 'legacy' });
    const gasPrice = BigInt(await h.rpc<string>('eth_gasPrice', []));
    const i = intent(legacy, { amount: 5n, fee: 'HIGH' });
    const before = await ethBalance(h, key.address);
    const { signed, paid } = await sendAndCheck(legacy, i);
    const decoded = Transaction.from(signed.serialized);
    expect(decoded.type).toBe(0);
    expect(decoded.chainId).toBe(31337n);
    expect(decoded.signature!.networkV).toBe(31337n * 2n + 35n + BigInt(decoded.signature!.yParity));
    expect(decoded.gasPrice).toBe((gasPrice * 150n) / 100n);
    expect(await ethBalance(h, i.recipientAddress)).toBe(5n);
    expect(before - (await ethBalance(h, key.address))).toBe(5n + paid);
  });

  it('a custom gwei figure is the max fee per gas; the tip is at most that', async () => {
    const i = intent(adaptor, { amount: 7n, fee: '2.5' });
    const { signed } = await sendAndCheck(adaptor, i);
    const decoded = Transaction.from(signed.serialized);
    expect(decoded.maxFeePerGas).toBe(2_500_000_000n);
    expect(decoded.maxPriorityFeePerGas! <= 2_500_000_000n).toBe(true);
    expect(await ethBalance(h, i.recipientAddress)).toBe(7n);
  });

  it('a high-S signature (normalised by verifySignature) still broadcasts', async () => {
    const i = intent(adaptor, { amount: 11n });
    await sendAndCheck(adaptor, i, { highS: true });
    expect(await ethBalance(h, i.recipientAddress)).toBe(11n);
  });

  it('bytes other than the ones combine assembled, under its txid, are checked and refused before the node sees them', async () => {
    const unsigned = await adaptor.craft(key.source, intent(adaptor, { amount: 17n }));
    const [signed] = adaptor.combine(unsigned, sign(unsigned, key));
    const other = await adaptor.craft(key.source, intent(adaptor, { amount: 18n }));
    const [otherSigned] = adaptor.combine(other, sign(other, key));
    await expect(adaptor.broadcast({ ...signed!, serialized: otherSigned!.serialized })).rejects.toThrow(/does not match txid/);
    await expect(adaptor.broadcast({ ...signed!, serialized: '0x02ff' })).rejects.toThrow(/not a signed Ethereum transaction/);
    // Nothing reached the node: both nonces are still to be sent, in order.
    expect(await adaptor.broadcast(signed!)).toEqual({ txid: signed!.txid, alreadyKnown: false });
    expect(await adaptor.broadcast(otherSigned!)).toEqual({ txid: otherSigned!.txid, alreadyKnown: false });
  });

  it('broadcasting the same transaction twice: the second is alreadyKnown, nothing is sent twice', async () => {
    const i = intent(adaptor, { amount: 13n });
    const { signed } = await sendAndCheck(adaptor, i);
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: true });
    expect(await ethBalance(h, i.recipientAddress)).toBe(13n);
  });

  it('signatures are checked once, as they come in; combine refuses a payload of another key and a tampered state', async () => {
    const i = intent(adaptor, { amount: 17n });
    const unsigned = await adaptor.craft(key.source, i);
    const other = newKey(adaptor);
    // The one signature check (src/ledger/signatures.ts) refuses another key and another digest.
    expect(() => sign(unsigned, other)).toThrow(VerificationError);
    const i2 = intent(adaptor, { amount: 19n });
    const second = await adaptor.craft(key.source, i2);
    const [overSecond] = signUnchecked(second.payloads[0]!.digest, key);
    expect(() =>
      verifySignature(unsigned.payloads[0]!.digest, Buffer.from(overSecond!.signature).toString('hex'), overSecond!.recoveryId, key.publicKey),
    ).toThrow(VerificationError);
    // combine: the key the signature was checked against must be the vault's.
    const otherKeyHex = publicKeyHex(other.publicKey);
    const ofOtherKey = { ...unsigned, payloads: [{ ...unsigned.payloads[0]!, publicKey: otherKeyHex }] };
    expect(() => adaptor.combine(ofOtherKey, signUnchecked(unsigned.payloads[0]!.digest, other))).toThrow(
      /is the key of 0x[0-9a-f]{40}, not of the vault address/,
    );
    const tampered = { ...unsigned, state: { ...(unsigned.state as Record<string, string>), value: '1000' } };
    expect(() => adaptor.combine(tampered, sign(unsigned, key))).toThrow(/not the one that was signed/);
    // A high-s signature never leaves combine (the receiver stores low s; nodes take only low s).
    const [low] = sign(unsigned, key);
    expect(() => adaptor.combine(unsigned, [{ ...low!, signature: otherS(low!.signature), recoveryId: (low!.recoveryId ^ 1) as 0 | 1 }])).toThrow(/low s/);
    await adaptor.release(unsigned, i.reference);
    await adaptor.release(second, i2.reference);
  });
});
