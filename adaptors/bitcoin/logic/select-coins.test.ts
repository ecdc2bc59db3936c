import { describe, expect, it } from 'vitest';
import { dustThreshold } from './dust.js';
import { selectCoins, type Candidate } from './select-coins.js';

const p2wpkh = Uint8Array.from([0x00, 0x14, ...new Array<number>(20).fill(1)]);
const p2pkh = Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(2), 0x88, 0xac]);
const p2tr = Uint8Array.from([0x51, 0x20, ...new Array<number>(32).fill(3)]);
const coin = (value: bigint, vout = 0): Candidate => ({
  utxo: { txid: 'aa'.repeat(32), vout, value, address: 'x', confirmed: true },
  format: 'p2wpkh',
});

describe('coin selection', () => {
  it("uses Bitcoin Core's dust thresholds", () => {
    expect(dustThreshold(p2pkh)).toBe(546n);
    expect(dustThreshold(p2wpkh)).toBe(294n);
    expect(dustThreshold(p2tr)).toBe(330n);
  });

  it('adds change when it is worth an output, and balances to the satoshi', () => {
    const sel = selectCoins([coin(100_000n)], { script: p2wpkh, amount: 40_000n }, p2wpkh, 2);
    if (!sel.ok) throw new Error('expected a selection');
    expect(sel.change).toBeGreaterThan(0n);
    expect(40_000n + sel.change + sel.fee).toBe(100_000n);
    // 1 P2WPKH input, 2 outputs ≈ 141 vB at 2 sat/vB, never below.
    expect(sel.fee).toBeGreaterThanOrEqual(282n);
  });

  it('gives change below the dust threshold to the fee instead of creating dust', () => {
    // At 1 sat/vB coinselect would keep a ~200 sat change; for a P2PKH change that is dust (546).
    const amount = 100_000n - 110n - 300n;
    const sel = selectCoins([coin(100_000n)], { script: p2wpkh, amount }, p2pkh, 1);
    if (!sel.ok) throw new Error('expected a selection');
    expect(sel.change).toBe(0n);
    expect(sel.fee).toBe(100_000n - amount);
  });

  it('reports the fee and what is available when the coins do not suffice', () => {
    const sel = selectCoins([coin(10_000n), coin(5_000n, 1)], { script: p2wpkh, amount: 15_000n }, p2wpkh, 3);
    expect(sel.ok).toBe(false);
    if (sel.ok) return;
    expect(sel.available).toBe(15_000n);
    expect(sel.fee).toBeGreaterThan(0n);
  });
});
