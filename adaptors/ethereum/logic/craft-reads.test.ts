import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsufficientFundsError } from '../../../src/platform/errors.js';
import type { LedgerAdaptor, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import { countedAdaptor, intent, newKey, startHarness, type Harness, type TestKey } from '../test-kit.js';

const ETH = 10n ** 18n;
const nonceOf = (u: UnsignedWithdrawal): bigint => BigInt((u.state as { nonce: string }).nonce);
const spendOf = (u: UnsignedWithdrawal): bigint => BigInt((u.state as { value: string }).value) + u.fee;

describe('ethereum craft reads the node once per block, and never promises more than the balance', () => {
  let h: Harness;
  let plain: LedgerAdaptor;
  const closers: (() => void)[] = [];

  beforeAll(async () => {
    h = await startHarness();
    plain = h.adaptor();
  });
  afterAll(async () => {
    closers.forEach((c) => c());
    await h.close();
  });

  async function fundedKey(wei: bigint): Promise<TestKey> {
    const key = newKey(plain);
    await h.chain.funder.sendEth(key.address, wei);
    return key;
  }

  it('50 concurrent withdrawals in one block: fee history, balance and nonces read once, gas estimates in shared round trips', async () => {
    const key = await fundedKey(10n * ETH);
    const c = countedAdaptor(h, { headMaxAgeMs: 60_000 });
    closers.push(c.close);
    const crafted = await Promise.all(Array.from({ length: 50 }, () => c.adaptor.craft(key.source, intent(c.adaptor, { amount: 1000n }))));
    expect(crafted.map(nonceOf).sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 50 }, (_, i) => BigInt(i)));
    expect(c.counts.calls.eth_blockNumber).toBe(1);
    expect(c.counts.calls.eth_feeHistory).toBe(1);
    expect(c.counts.calls.eth_getBalance).toBe(1);
    // The nonces, then each nonce again beside its balance (see ChainReads.accounts): latest twice, pending once.
    expect(c.counts.calls.eth_getTransactionCount).toBe(3);
    // Each withdrawal pays a recipient of its own: one estimate each, asked together.
    expect(c.counts.calls.eth_estimateGas).toBe(50);
    expect(c.counts.roundTrips).toBeLessThanOrEqual(4 + 10);

    // The same block again: nothing but the new estimates.
    c.reset();
    await c.adaptor.craft(key.source, intent(c.adaptor, { amount: 1000n }));
    expect(c.counts.calls).toEqual({ eth_estimateGas: 1 });
  });

  it('a new block refreshes what it can change', async () => {
    const key = await fundedKey(10n * ETH);
    const c = countedAdaptor(h, { headMaxAgeMs: 0 });
    closers.push(c.close);
    const recipient = intent(c.adaptor, { amount: 1n }).recipientAddress;
    await Promise.all(Array.from({ length: 5 }, () => c.adaptor.craft(key.source, intent(c.adaptor, { amount: 1n, recipientAddress: recipient }))));
    expect(c.counts.calls).toMatchObject({ eth_feeHistory: 1, eth_getBalance: 1, eth_estimateGas: 1 });
    // headMaxAgeMs 0: the head is asked on each read (the balances and fees, then the estimate), and the same block keeps the answers.
    c.reset();
    await c.adaptor.craft(key.source, intent(c.adaptor, { amount: 1n, recipientAddress: recipient }));
    expect(c.counts.calls).toEqual({ eth_blockNumber: 2 });
    await h.rpc('anvil_mine', ['0x1']);
    c.reset();
    await c.adaptor.craft(key.source, intent(c.adaptor, { amount: 1n, recipientAddress: recipient }));
    expect(c.counts.calls).toEqual({ eth_blockNumber: 2, eth_feeHistory: 1, eth_getBalance: 1, eth_getTransactionCount: 3, eth_estimateGas: 1 });
  });

  it('30 concurrent withdrawals of 0.1 ETH from 1 ETH, from two adaptors (processes): what they promise stays within the balance', async () => {
    const key = await fundedKey(ETH);
    const a = countedAdaptor(h, { headMaxAgeMs: 60_000 });
    const b = countedAdaptor(h, { headMaxAgeMs: 60_000 });
    closers.push(a.close, b.close);
    const intents = Array.from({ length: 30 }, () => intent(plain, { amount: ETH / 10n }));
    const outcomes = await Promise.allSettled(intents.map((x, i) => (i % 2 ? a : b).adaptor.craft(key.source, x)));
    const made = outcomes.flatMap((o, i) =>
      o.status === 'fulfilled' ? [{ unsigned: o.value, reference: (intents[i] as { reference: string }).reference }] : [],
    );
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    const spend = made.reduce((sum, m) => sum + spendOf(m.unsigned), 0n);
    // 0.1 ETH + a max fee of at most ~0.00004 ETH each: nine fit in 1 ETH, not ten.
    expect(made).toHaveLength(9);
    expect(spend).toBeLessThanOrEqual(ETH);
    expect(made.map((m) => nonceOf(m.unsigned)).sort((x, y) => Number(x - y))).toEqual(Array.from({ length: 9 }, (_, i) => BigInt(i)));
    expect(refused).toHaveLength(21);
    for (const e of refused) {
      expect(e).toBeInstanceOf(InsufficientFundsError);
      expect((e as InsufficientFundsError).fields).toMatchObject({ asset: 'ETH', pendingBaseUnits: expect.stringMatching(/^\d+$/) });
    }
    // A withdrawal that fails before broadcast gives its spend back: its nonce and its 0.1 ETH go to the next one.
    const gone = made[4] as (typeof made)[number];
    await a.adaptor.release(gone.unsigned, gone.reference);
    const next = await b.adaptor.craft(key.source, intent(plain, { amount: ETH / 10n }));
    expect(nonceOf(next)).toBe(nonceOf(gone.unsigned));
    await expect(a.adaptor.craft(key.source, intent(plain, { amount: ETH / 10n }))).rejects.toBeInstanceOf(InsufficientFundsError);
  });

  it('a deposit made after the head was read is seen: a refusal is decided again on a fresh read', async () => {
    const c = countedAdaptor(h, { headMaxAgeMs: 60_000 });
    closers.push(c.close);
    const warm = await fundedKey(ETH);
    await c.adaptor.craft(warm.source, intent(c.adaptor, { amount: 1n }));
    const late = newKey(plain);
    await h.chain.funder.sendEth(late.address, ETH);
    const made = await c.adaptor.craft(late.source, intent(c.adaptor, { amount: ETH / 2n }));
    expect(nonceOf(made)).toBe(0n);
  });
});
