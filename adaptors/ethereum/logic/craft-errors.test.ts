import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, InsufficientFundsError, InvalidArgumentError } from '../../../src/platform/errors.js';
import type { LedgerAdaptor } from '../../../src/ledger/adaptor.js';
import { intent, newKey, startHarness, type Harness } from '../test-kit.js';

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('ethereum craft refuses what it cannot build, with figures', () => {
  let h: Harness;
  let adaptor: LedgerAdaptor;

  beforeAll(async () => {
    h = await startHarness();
    adaptor = h.adaptor();
  });
  afterAll(() => h.close());

  it('an unknown fee is a 422 naming the valid values, before any node call', async () => {
    const key = newKey(adaptor);
    for (const fee of ['FAST', '', '-1', '0', '1e9', '1.0000000001']) {
      const e = await rejection(adaptor.craft(key.source, intent(adaptor, { amount: 1n, fee })));
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect(e.status).toBe(422);
    }
    const e = await rejection(adaptor.craft(key.source, intent(adaptor, { amount: 1n, fee: 'FAST' })));
    expect(e.details).toContain('HIGH, MEDIUM, LOW or a gwei figure');
    expect(e.fields).toMatchObject({ field: 'fee', valid: ['MEDIUM', 'HIGH', 'LOW'] });
  });

  it('a custom fee under the base fee, a bad recipient or a zero amount is a 422', async () => {
    const key = newKey(adaptor);
    await h.chain.funder.sendEth(key.address, 10n ** 18n);
    const low = await rejection(adaptor.craft(key.source, intent(adaptor, { amount: 1n, fee: '0.000000001' })));
    expect(low.details).toMatch(/below the next block's base fee/);
    const bad = await rejection(adaptor.craft(key.source, intent(adaptor, { amount: 1n, recipientAddress: '0x1234' })));
    expect(bad.fields).toMatchObject({ field: 'recipientAddress' });
    const zero = await rejection(adaptor.craft(key.source, intent(adaptor, { amount: 0n })));
    expect(zero.fields).toMatchObject({ field: 'amount' });
  });

  it("legacy mode: a custom gas price under the next block's base fee is the same 422 as the EIP-1559 max fee, and reserves no nonce", async () => {
    const legacy = h.adaptor({ feeMode: 'legacy' });
    const key = newKey(legacy);
    await h.chain.funder.sendEth(key.address, 10n ** 18n);
    const refusals = await Promise.all([legacy, adaptor].map((a) => rejection(a.craft(key.source, intent(a, { amount: 1n, fee: '0.000000001' })))));
    for (const e of refusals) {
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect(e.details).toMatch(/^fee 0.000000001 gwei is below the next block's base fee of [\d.]+ gwei$/);
      expect(e.fields).toEqual({ field: 'fee', baseFeePerGas: expect.stringMatching(/^[1-9]\d*$/) });
    }
    // Nothing was reserved: the next withdrawal from the address takes nonce 0.
    const unsigned = await legacy.craft(key.source, intent(legacy, { amount: 1n }));
    expect(unsigned.state).toMatchObject({ nonce: '0', type: 0 });
  });

  it('an amount above uint256 (2^256-1 base units) is a 422 on amount, before anything is encoded or reserved', async () => {
    const key = newKey(adaptor);
    const demo = adaptor.assets()[1]!;
    await h.chain.funder.sendEth(key.address, 10n ** 18n);
    for (const asset of [demo, adaptor.nativeAsset]) {
      const e = await rejection(adaptor.craft(key.source, intent(adaptor, { asset, amount: 2n ** 256n })));
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect(e.fields).toEqual({ field: 'amount' });
    }
    const unsigned = await adaptor.craft(key.source, intent(adaptor, { amount: 1n }));
    expect(unsigned.state).toMatchObject({ nonce: '0' });
  });

  it('ETH: amount + gasLimit × maxFeePerGas over the balance is InsufficientFunds with the figures', async () => {
    const key = newKey(adaptor);
    await h.chain.funder.sendEth(key.address, 1_000_000n);
    const e = await rejection(adaptor.craft(key.source, intent(adaptor, { amount: 1_000_000n, fee: '3' })));
    expect(e).toBeInstanceOf(InsufficientFundsError);
    expect(e.status).toBe(422);
    // Asset units like every amount on the wire; the exact wei beside them.
    expect(e.fields).toEqual({
      address: key.address,
      asset: 'ETH',
      required: '0.000063000001',
      available: '0.000000000001',
      requiredBaseUnits: String(1_000_000n + 21000n * 3_000_000_000n),
      availableBaseUnits: '1000000',
      fee: '0.000063',
      feeAsset: 'ETH',
      feeBaseUnits: String(21000n * 3_000_000_000n),
      gasLimit: '21000',
      maxFeePerGasGwei: '3',
    });
    expect(e.details).toContain('21000 gas × 3 gwei');
  });

  it('ERC-20: a token balance under the amount is InsufficientFunds in token units', async () => {
    const key = newKey(adaptor);
    const demo = adaptor.assets()[1]!;
    await h.chain.funder.sendEth(key.address, 10n ** 18n);
    await h.chain.funder.sendToken(h.chain.token.contract, key.address, 100n);
    const e = await rejection(adaptor.craft(key.source, intent(adaptor, { asset: demo, amount: 101n })));
    expect(e).toBeInstanceOf(InsufficientFundsError);
    expect(e.fields).toEqual({
      address: key.address,
      asset: 'DEMO',
      required: '0.000101',
      available: '0.0001',
      requiredBaseUnits: '101',
      availableBaseUnits: '100',
    });
    expect(e.details).toContain('0.0001 DEMO');
  });

  it('ERC-20: tokens but no ETH for gas is InsufficientFunds for the fee', async () => {
    const key = newKey(adaptor);
    const demo = adaptor.assets()[1]!;
    await h.chain.funder.sendToken(h.chain.token.contract, key.address, 100n);
    const e = await rejection(adaptor.craft(key.source, intent(adaptor, { asset: demo, amount: 100n })));
    expect(e).toBeInstanceOf(InsufficientFundsError);
    expect(e.fields).toMatchObject({ address: key.address, asset: 'ETH', available: '0', availableBaseUnits: '0', feeAsset: 'ETH' });
    expect(BigInt(e.fields.gasLimit as string)).toBeGreaterThan(21000n);
    expect(e.fields.required).toBe(e.fields.fee);
  });

  it('refusals reserve no nonce; with several addresses the first that can pay is used', async () => {
    const empty = newKey(adaptor);
    const funded = newKey(adaptor);
    await h.chain.funder.sendEth(funded.address, 10n ** 18n);
    await rejection(adaptor.craft(funded.source, intent(adaptor, { amount: 2n * 10n ** 18n })));
    await rejection(adaptor.craft(funded.source, intent(adaptor, { amount: 1n, fee: 'FAST' })));
    const both = { ...empty.source, addresses: [...empty.source.addresses, ...funded.source.addresses] };
    const unsigned = await adaptor.craft(both, intent(adaptor, { amount: 1n }));
    expect(unsigned.state).toMatchObject({ from: funded.address, nonce: '0' });
    expect(unsigned.payloads[0]!.keyId).toBe(funded.source.addresses[0]!.keyId);
    const again = await adaptor.craft(funded.source, intent(adaptor, { amount: 1n }));
    expect(again.state).toMatchObject({ nonce: '1' });
  });
});
