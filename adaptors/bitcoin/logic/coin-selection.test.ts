import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import { chooseCoins, maxSendable, selectCoins, type Candidate } from './coin-selection.js';
import { dustThreshold } from './dust.js';
import { inputWeight, MAX_STANDARD_TX_WEIGHT, signedWeight, vbytes } from './tx-size.js';

const p2wpkh = Uint8Array.from([0x00, 0x14, ...new Array<number>(20).fill(1)]);
let vout = 0;
const coin = (value: bigint, format: Candidate['format'] = 'p2wpkh'): Candidate => ({
  utxo: { txid: 'aa'.repeat(32), vout: vout++, value, address: 'x', confirmed: true },
  format,
});
/** An input cap above what the standard weight allows: the weight is the limit. */
const BY_WEIGHT = 5_000;
const weightOf = (inputs: Candidate[], outputs: number) =>
  signedWeight(
    inputs.map((c) => c.format),
    new Array<number>(outputs).fill(p2wpkh.length),
  );
const p2pkh = Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(2), 0x88, 0xac]);
const p2tr = Uint8Array.from([0x51, 0x20, ...new Array<number>(32).fill(3)]);
/** A P2WPKH coin at output `vout`. */
const coinAt = (value: bigint, index = 0): Candidate => ({
  utxo: { txid: 'aa'.repeat(32), vout: index, value, address: 'x', confirmed: true },
  format: 'p2wpkh',
});

describe('coin selection', () => {
  it("uses Bitcoin Core's dust thresholds", () => {
    expect(dustThreshold(p2pkh)).toBe(546n);
    expect(dustThreshold(p2wpkh)).toBe(294n);
    expect(dustThreshold(p2tr)).toBe(330n);
  });

  it('adds change when it is worth an output, and balances to the satoshi', () => {
    const sel = selectCoins([coinAt(100_000n)], { script: p2wpkh, amount: 40_000n }, p2wpkh, 2);
    if (!sel.ok) throw new Error('expected a selection');
    expect(sel.change).toBeGreaterThan(0n);
    expect(40_000n + sel.change + sel.fee).toBe(100_000n);
    // 1 P2WPKH input, 2 outputs ≈ 141 vB at 2 sat/vB, never below.
    expect(sel.fee).toBeGreaterThanOrEqual(282n);
  });

  it('gives change below the dust threshold to the fee instead of creating dust', () => {
    // At 1 sat/vB coinselect would keep a ~200 sat change; for a P2PKH change that is dust (546).
    const amount = 100_000n - 110n - 300n;
    const sel = selectCoins([coinAt(100_000n)], { script: p2wpkh, amount }, p2pkh, 1);
    if (!sel.ok) throw new Error('expected a selection');
    expect(sel.change).toBe(0n);
    expect(sel.fee).toBe(100_000n - amount);
  });

  it('reports the fee and what is available when the coins do not suffice', () => {
    const sel = selectCoins([coinAt(10_000n), coinAt(5_000n, 1)], { script: p2wpkh, amount: 15_000n }, p2wpkh, 3);
    expect(sel.ok).toBe(false);
    if (sel.ok) return;
    expect(sel.available).toBe(15_000n);
    expect(sel.fee).toBeGreaterThan(0n);
  });

  it('counts in `available` only coins worth spending at the rate, so what is refused is always more than what is available', () => {
    // 100 coins of 600 sat cost ~690 sat each to spend at 10 sat/vB: 60,000 sat that cannot pay anything.
    const dust = Array.from({ length: 100 }, () => coin(600n));
    const coins = [...dust, coin(10_000n)];
    const amount = 15_000n;
    for (const toSelf of [false, true]) {
      const c = chooseCoins(coins, { script: p2wpkh, amount }, p2wpkh, 10, toSelf, BY_WEIGHT);
      if (c.ok) throw new Error('expected a refusal');
      expect(c.available, toSelf ? 'consolidation' : 'payment').toBe(10_000n);
      expect(amount + c.fee).toBeGreaterThan(c.available);
    }
  });
});

describe('transaction size', () => {
  it('counts a signed P2WPKH input as 68.25 vB and the input count varint past 252 inputs', () => {
    expect(inputWeight('p2wpkh')).toBe(273);
    const small = signedWeight(new Array(252).fill('p2wpkh'), [22]);
    const big = signedWeight(new Array(253).fill('p2wpkh'), [22]);
    expect(big - small).toBe(273 + 2 * 4);
  });
});

describe('coins within the standard transaction size', () => {
  const many = (n: number, from = 20_000n) => Array.from({ length: n }, (_, i) => coin(from + BigInt(i)));

  it('consolidates as many of the smallest coins as fit into one output carrying all but the fee', () => {
    const coins = many(2_000);
    const c = chooseCoins(coins, { script: p2wpkh, amount: 1_000n }, p2wpkh, 2, true, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(c.toSelf).toBe(true);
    expect(c.change).toBe(0n);
    const weight = weightOf(c.inputs, 1);
    expect(weight).toBeLessThanOrEqual(MAX_STANDARD_TX_WEIGHT);
    // One more input would be over the limit: as many as fit.
    expect(weight + inputWeight('p2wpkh')).toBeGreaterThan(MAX_STANDARD_TX_WEIGHT);
    expect(c.inputs.length).toBeGreaterThan(1_400);
    // The smallest ones.
    const largestTaken = c.inputs.reduce((m, x) => (x.utxo.value > m ? x.utxo.value : m), 0n);
    expect(largestTaken).toBe(20_000n + BigInt(c.inputs.length - 1));
    const sum = c.inputs.reduce((s, x) => s + x.utxo.value, 0n);
    expect(c.fee).toBe(BigInt(vbytes(weight) * 2));
    expect(c.send).toBe(sum - c.fee);
  });

  it('takes the largest coins a consolidation needs to reach its amount, and the smallest for the rest of the room', () => {
    // The 1,460 smallest hold ~30.3M sat: short of the amount without the two big coins.
    const coins = [...many(1_600), coin(5_000_000n), coin(6_000_000n)];
    const c = chooseCoins(coins, { script: p2wpkh, amount: 40_000_000n }, p2wpkh, 1, true, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a consolidation');
    const values = new Set(c.inputs.map((x) => x.utxo.value));
    expect(values.has(5_000_000n) && values.has(6_000_000n)).toBe(true);
    expect(c.send).toBeGreaterThanOrEqual(40_000_000n);
    expect(weightOf(c.inputs, 1) + inputWeight('p2wpkh')).toBeGreaterThan(MAX_STANDARD_TX_WEIGHT);
  });

  it('leaves coins that cost more to spend than they hold out of a consolidation', () => {
    const coins = [coin(300n), coin(50_000n), coin(60_000n)];
    const c = chooseCoins(coins, { script: p2wpkh, amount: 1_000n }, p2wpkh, 10, true, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(c.inputs.map((x) => x.utxo.value).sort()).toEqual([50_000n, 60_000n]);
  });

  it('refuses a payment that needs more coins than fit with a 422 naming the most one transaction sends, which itself goes through', () => {
    const coins = many(2_000);
    const err = (() => {
      try {
        chooseCoins(coins, { script: p2wpkh, amount: 35_000_000n }, p2wpkh, 1, false, BY_WEIGHT);
      } catch (e) {
        return e;
      }
    })() as InvalidArgumentError;
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.status).toBe(422);
    const max = maxSendable(coins, p2wpkh.length, 1, BY_WEIGHT);
    expect(err.fields).toMatchObject({ field: 'amount', maxAmountBaseUnits: max.amount.toString(), maxInputs: max.inputs });
    expect(err.details).toContain('consolidate');
    const c = chooseCoins(coins, { script: p2wpkh, amount: max.amount }, p2wpkh, 1, false, BY_WEIGHT);
    if (!c.ok) throw new Error('the named maximum must be sendable');
    expect(weightOf(c.inputs, c.change > 0n ? 2 : 1)).toBeLessThanOrEqual(MAX_STANDARD_TX_WEIGHT);
    expect(c.send + c.change + c.fee).toBe(c.inputs.reduce((s, x) => s + x.utxo.value, 0n));
  });

  it("replaces the general selector's pick when it is over the standard size by the largest coins first", () => {
    // Blackjack (exact match, no change) skips the big coin, which overshoots, and lands on
    // 1,600 small ones: coinselect counts 41 + 69 bytes per input at 1 sat/B, 50 sat to spare.
    const coins = [...Array.from({ length: 2_000 }, () => coin(20_000n)), coin(1_000_000_000n)];
    const amount = 20_000n * 1_600n - 41n - 69n * 1_600n - 50n;
    const c = chooseCoins(coins, { script: p2wpkh, amount }, p2wpkh, 1, false, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a selection');
    expect(c.inputs.map((x) => x.utxo.value)).toEqual([1_000_000_000n]);
    expect(c.change).toBe(1_000_000_000n - amount - c.fee);
    expect(c.fee).toBe(BigInt(vbytes(weightOf(c.inputs, 2))));
  });

  it('spends at most maxInputs coins (one sign request), in a consolidation and in a payment', () => {
    const coins = many(2_000);
    const c = chooseCoins(coins, { script: p2wpkh, amount: 1_000n }, p2wpkh, 1, true, 1_000);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(c.inputs).toHaveLength(1_000);
    const err = (() => {
      try {
        chooseCoins(coins, { script: p2wpkh, amount: 25_000_000n }, p2wpkh, 1, false, 1_000);
      } catch (e) {
        return e;
      }
    })() as InvalidArgumentError;
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.fields.maxInputs).toBe(1_000);
    expect(err.details).toContain('at most 1000 inputs');
  });
});

describe('change that has no room beside the coins', () => {
  const p2tr = Uint8Array.from([0x51, 0x20, ...new Array<number>(32).fill(7)]);
  const p2sh = Uint8Array.from([0xa9, 0x14, ...new Array<number>(20).fill(3), 0x87]);

  it('is never burnt as fee: the payment is refused with the most that leaves room for it, which goes through with its change', () => {
    // 1,095 P2SH-P2WPKH inputs fit with the P2TR output alone, 1,094 with a change output too. The
    // amount needs 1,095 coins, which leave ~0.0095 BTC of change that only fits as fee.
    const coins = Array.from({ length: 1_200 }, () => coin(1_000_000n, 'p2sh-p2wpkh'));
    const amount = 1_094n * 1_000_000n - 50_000n;
    const err = (() => {
      try {
        return chooseCoins(coins, { script: p2tr, amount }, p2sh, 1, false, 2_000);
      } catch (e) {
        return e;
      }
    })();
    expect(err, 'expected a refusal, not a selection').toBeInstanceOf(InvalidArgumentError);
    const max = maxSendable(coins, p2tr.length, 1, 2_000, p2sh);
    expect(max.amount).toBeLessThan(amount);
    expect((err as InvalidArgumentError).fields).toMatchObject({ field: 'amount', maxAmountBaseUnits: max.amount.toString(), maxInputs: max.inputs });
    const c = chooseCoins(coins, { script: p2tr, amount: max.amount }, p2sh, 1, false, 2_000);
    if (!c.ok) throw new Error('the named maximum must be sendable');
    expect(c.change).toBeGreaterThan(0n);
    const weight = signedWeight(
      c.inputs.map((x) => x.format),
      [p2tr.length, p2sh.length],
    );
    expect(weight).toBeLessThanOrEqual(MAX_STANDARD_TX_WEIGHT);
    // What it pays beyond its size at 1 sat/vB: nothing.
    expect(c.fee - BigInt(vbytes(weight))).toBeLessThan(1_000n);
  });
});

/** The error `f` throws, or undefined. */
const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
};
const weightOfScripts = (inputs: Candidate[], scriptLengths: number[]) =>
  signedWeight(
    inputs.map((c) => c.format),
    scriptLengths,
  );
const values = (inputs: Candidate[]) => inputs.map((x) => x.utxo.value);
const p2sh = Uint8Array.from([0xa9, 0x14, ...new Array<number>(20).fill(4), 0x87]);

describe('coin selection at its boundaries', () => {
  it('counts in `available` a coin worth exactly the fee of its own input', () => {
    // At 1 sat/vB a P2WPKH input costs 41 + 28 = 69 sat: a coin of 69 still counts, one of 68 does not.
    const sel = selectCoins([coin(69n), coin(68n), coin(1_000n)], { script: p2wpkh, amount: 100_000n }, p2wpkh, 1);
    if (sel.ok) throw new Error('expected a refusal');
    expect(sel.available).toBe(1_069n);
  });

  it('keeps a change of exactly the dust threshold as an output', () => {
    const sel = selectCoins([coinAt(100_000n)], { script: p2wpkh, amount: 99_562n }, p2wpkh, 1);
    if (!sel.ok) throw new Error('expected a selection');
    expect(sel.change).toBe(dustThreshold(p2wpkh));
    expect(sel.fee).toBe(144n);
  });

  it('leaves out of a consolidation a coin worth exactly what its input costs (with the count byte), and takes one a satoshi more', () => {
    // At 4 sat/vB a P2WPKH input and a count byte's growth cost (273 + 8) / 4 × 4 = 281 sat.
    const c = chooseCoins([coin(281n), coin(282n), coin(50_000n)], { script: p2wpkh, amount: 1_000n }, p2wpkh, 4, true, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(values(c.inputs).sort()).toEqual([282n, 50_000n]);
  });

  it('fills a transaction to exactly the standard weight', () => {
    // 1,264 P2WPKH and 150 P2SH-P2WPKH inputs and one P2SH output weigh exactly 400,000.
    const coins = [...Array.from({ length: 1_264 }, () => coin(10_000n)), ...Array.from({ length: 150 }, () => coin(10_000n, 'p2sh-p2wpkh'))];
    expect(weightOfScripts(coins, [p2sh.length])).toBe(MAX_STANDARD_TX_WEIGHT);
    const c = chooseCoins(coins, { script: p2sh, amount: 1_000n }, p2wpkh, 1, true, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(c.inputs).toHaveLength(coins.length);
    expect(c.fee).toBe(BigInt(MAX_STANDARD_TX_WEIGHT / 4));
    expect(maxSendable(coins, p2sh.length, 1, BY_WEIGHT)).toEqual({ amount: 10_000n * 1_414n - 100_000n, inputs: 1_414 });
  });
});

describe('the most one transaction sends', () => {
  it('counts the largest coins that pay for themselves', () => {
    // One input allowed: the largest; the 100 sat coin costs more than it holds at 10 sat/vB.
    const coins = [coin(100n), coin(20_000n), coin(50_000n), coin(30_000n)];
    const fee1 = BigInt(vbytes(weightOf([coin(0n)], 1)) * 10);
    expect(maxSendable(coins, p2wpkh.length, 10, 1)).toEqual({ amount: 50_000n - fee1, inputs: 1 });
    const fee3 = BigInt(vbytes(weightOf([coin(0n), coin(0n), coin(0n)], 1)) * 10);
    expect(maxSendable(coins, p2wpkh.length, 10, BY_WEIGHT)).toEqual({ amount: 100_000n - fee3, inputs: 3 });
  });

  it('is zero, never negative, when the coins do not cover the fee', () => {
    expect(maxSendable([], p2wpkh.length, 1, BY_WEIGHT)).toEqual({ amount: 0n, inputs: 0 });
    expect(maxSendable([coin(500n)], p2wpkh.length, 1, BY_WEIGHT, p2pkh)).toEqual({ amount: 0n, inputs: 1 });
  });
});

describe('a payment within maxInputs', () => {
  // Blackjack (no change) skips the big coin, which overshoots by 200 sat, and matches the
  // three small ones exactly: coinselect counts 10 + 3 × 69 + 31 = 248 bytes at 1 sat/B.
  const amount = 60_000n - 248n - 10n;
  const bigFee = BigInt(vbytes(weightOf([coin(0n)], 1)));
  const coins = (big: bigint) => [coin(big), coin(20_000n), coin(20_000n), coin(20_000n)];

  it("takes the general selector's pick when it has exactly maxInputs coins", () => {
    const c = chooseCoins(coins(amount + bigFee + 200n), { script: p2wpkh, amount }, p2wpkh, 1, false, 3);
    if (!c.ok) throw new Error('expected a selection');
    expect(values(c.inputs)).toEqual([20_000n, 20_000n, 20_000n]);
    expect({ send: c.send, change: c.change, fee: c.fee, toSelf: c.toSelf }).toEqual({ send: amount, change: 0n, fee: 258n, toSelf: false });
  });

  it('takes the largest coin instead when the pick has more, giving a change under the dust threshold to the fee', () => {
    const big = amount + bigFee + 200n;
    const c = chooseCoins(coins(big), { script: p2wpkh, amount }, p2wpkh, 1, false, 2);
    if (!c.ok) throw new Error('expected a selection');
    expect(values(c.inputs)).toEqual([big]);
    // With a change output the change would be 169 sat, under the 294 of P2WPKH.
    expect({ send: c.send, change: c.change, fee: c.fee, toSelf: c.toSelf }).toEqual({ send: amount, change: 0n, fee: big - amount, toSelf: false });
  });

  it('takes the largest coin instead when the pick has more, with its change', () => {
    const c = chooseCoins(coins(100_000n), { script: p2wpkh, amount }, p2wpkh, 1, false, 2);
    if (!c.ok) throw new Error('expected a selection');
    expect(values(c.inputs)).toEqual([100_000n]);
    const fee = BigInt(vbytes(weightOf(c.inputs, 2)));
    expect({ send: c.send, change: c.change, fee: c.fee, toSelf: c.toSelf }).toEqual({ send: amount, change: 100_000n - amount - fee, fee, toSelf: false });
  });
});

describe('a consolidation', () => {
  const own = (amount: bigint) => ({ script: p2wpkh, amount });
  /** Fee at 1 sat/vB of one P2WPKH input and one P2WPKH output. */
  const fee1 = BigInt(vbytes(weightOf([coin(0n)], 1)));

  it('sends at least the dust threshold, even when asked for less', () => {
    // 350 − 110 = 240 sat would be a dust output.
    expect(chooseCoins([coin(350n)], own(1n), p2wpkh, 1, true, BY_WEIGHT)).toEqual({ ok: false, fee: fee1, available: 350n });
  });

  it('goes through when what is left after the fee is exactly the amount', () => {
    const c = chooseCoins([coin(5_000n + fee1)], own(5_000n), p2wpkh, 1, true, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a consolidation');
    expect({ send: c.send, change: c.change, fee: c.fee, toSelf: c.toSelf }).toEqual({ send: 5_000n, change: 0n, fee: fee1, toSelf: true });
  });

  it('is refused with what is available when the coins hold the amount but not its fee', () => {
    expect(chooseCoins([coin(10_000n)], own(10_000n), p2wpkh, 1, true, BY_WEIGHT)).toEqual({ ok: false, fee: fee1, available: 10_000n });
  });

  it('reports the fee of one input when no coin pays for itself', () => {
    expect(chooseCoins([coin(100n)], own(1_000n), p2wpkh, 10, true, BY_WEIGHT)).toEqual({ ok: false, fee: fee1 * 10n, available: 0n });
  });

  it('takes the smallest coins, whatever order they come in', () => {
    const c = chooseCoins([coin(50_000n), coin(20_000n), coin(10_000n)], own(1_000n), p2wpkh, 1, true, 1);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(values(c.inputs)).toEqual([10_000n]);
  });

  it('takes, of coins of the same value, the one listed first', () => {
    const coins = [coinAt(10_000n, 3), coinAt(10_000n, 1)];
    for (const toSelf of [true, false]) {
      const c = chooseCoins(coins, own(5_000n), p2wpkh, 1, toSelf, 1);
      if (!c.ok) throw new Error('expected a selection');
      expect(c.inputs.map((x) => x.utxo.vout)).toEqual([3]);
    }
  });

  it('takes only as many of the largest coins as reach the amount, and the smallest for the room left', () => {
    const c = chooseCoins([coin(1_000n), coin(2_000n), coin(50_000n), coin(60_000n)], own(55_000n), p2wpkh, 1, true, 2);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(values(c.inputs)).toEqual([60_000n, 1_000n]);
  });

  it('never spends a coin twice when a largest coin it needs has the value of the smallest', () => {
    // The three smallest (1,000 each) fall short; 60,000 and the first 1,000 reach the amount,
    // and the room left is filled from the smallest, the 1,000 already taken first among them.
    const coins = [coinAt(60_000n, 0), coinAt(1_000n, 1), coinAt(1_000n, 2), coinAt(1_000n, 3)];
    const c = chooseCoins(coins, own(60_500n), p2wpkh, 1, true, 3);
    if (!c.ok) throw new Error('expected a consolidation');
    expect(c.inputs.map((x) => x.utxo.vout)).toEqual([0, 1, 2]);
    expect(c.send).toBe(62_000n - c.fee);
  });

  it('is refused with a 422 naming the most one transaction sends when the coins hold enough but do not fit', () => {
    const coins = [coin(1_000n), coin(2_000n), coin(3_000n)];
    const err = thrown(() => chooseCoins(coins, own(4_000n), p2wpkh, 1, true, 1)) as InvalidArgumentError;
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.status).toBe(422);
    expect(err.fields).toMatchObject({ field: 'amount', maxAmountBaseUnits: (3_000n - fee1).toString(), maxInputs: 1 });
    expect(err.details).toBe(
      'amount 0.00004 BTC needs more coins than one transaction can spend (at most 1 inputs and 100000 vbytes): ' +
        "at most 0.0000289 BTC can be sent in one transaction at 1 sat/vB, from this vault's 1 largest free coins. " +
        'Send at most that, or first consolidate the vault (a withdrawal to its own address spends its small coins into one).',
    );
    // Holding exactly the amount and the fee of the coins that fit is enough to be told so.
    expect(thrown(() => chooseCoins(coins, own(6_000n - fee1), p2wpkh, 1, true, 1))).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('a payment at exactly the standard weight', () => {
  const p2trOut = Uint8Array.from([0x51, 0x20, ...new Array<number>(32).fill(5)]);
  const small = (p2wpkhCount: number, p2shCount: number) => [
    ...Array.from({ length: p2wpkhCount }, () => coin(20_000n)),
    ...Array.from({ length: p2shCount }, () => coin(20_000n, 'p2sh-p2wpkh')),
  ];
  /** What coinselect counts at 1 sat/B: 10 bytes, 41 + 28 per P2WPKH input, 41 + 51 per P2SH-P2WPKH one, 9 + 34 for the P2TR output. */
  const selectorFee = (p2wpkhCount: number, p2shCount: number) => BigInt(10 + 69 * p2wpkhCount + 92 * p2shCount + 43);
  const big = 1_000_000_000n;

  it("takes the general selector's pick without change that weighs exactly the standard weight", () => {
    // Blackjack skips the big coin and matches 1,201 P2WPKH and 197 P2SH-P2WPKH coins, which
    // with the P2TR output weigh 400,000: no room for a change output, and none needed.
    const amount = 20_000n * 1_398n - selectorFee(1_201, 197) - 50n;
    const c = chooseCoins([coin(big), ...small(1_201, 197)], { script: p2trOut, amount }, p2wpkh, 1, false, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a selection');
    expect(c.inputs).toHaveLength(1_398);
    expect(weightOfScripts(c.inputs, [p2trOut.length])).toBe(MAX_STANDARD_TX_WEIGHT);
    expect({ send: c.send, change: c.change, fee: c.fee, toSelf: c.toSelf }).toEqual({
      send: amount,
      change: 0n,
      fee: 20_000n * 1_398n - amount,
      toSelf: false,
    });
  });

  it("replaces a pick without change that is over the standard weight by its recipient's output alone", () => {
    // 1,465 P2WPKH inputs weigh 399,995 with no output, 400,167 with the P2TR one.
    const amount = 20_000n * 1_465n - selectorFee(1_465, 0) - 50n;
    const c = chooseCoins([coin(big), ...small(1_465, 0)], { script: p2trOut, amount }, p2wpkh, 1, false, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a selection');
    expect(values(c.inputs)).toEqual([big]);
    expect(c.change).toBe(big - amount - c.fee);
  });

  it('keeps, of the largest coins first, a change whose output brings the transaction to exactly the standard weight', () => {
    // coinselect counts more per input than their signed size and picks one coin more (over the
    // weight); the 1,123 P2WPKH and 255 P2SH-P2WPKH largest coins cover the amount, and with the
    // P2TR output and a P2WPKH change of 500 sat they weigh exactly 400,000.
    const amount = 20_000n * 1_378n - BigInt(MAX_STANDARD_TX_WEIGHT / 4) - 500n;
    const c = chooseCoins(small(1_123, 265), { script: p2trOut, amount }, p2wpkh, 1, false, BY_WEIGHT);
    if (!c.ok) throw new Error('expected a selection, not a refusal');
    expect(c.inputs).toHaveLength(1_378);
    expect(weightOfScripts(c.inputs, [p2trOut.length, p2wpkh.length])).toBe(MAX_STANDARD_TX_WEIGHT);
    expect({ send: c.send, change: c.change, fee: c.fee }).toEqual({ send: amount, change: 500n, fee: BigInt(MAX_STANDARD_TX_WEIGHT / 4) });
  });
});

describe('the largest coins first, in a payment', () => {
  it('passes over a larger coin that costs more to spend than it holds for a smaller one that pays', () => {
    // coinselect counts one byte more than the signed size of the big and the small coin, so it
    // adds the 151 sat P2PKH coin too: three inputs, one over maxInputs. Of the largest coins
    // first, the P2PKH one is left out: at 1 sat/vB its 596 WU input and 8 WU of count growth
    // cost 151 sat, all it holds.
    const big = coin(50_000n);
    const small = coin(100n);
    const amount = 50_100n - 178n;
    const c = chooseCoins([big, coin(151n, 'p2pkh'), small], { script: p2wpkh, amount }, p2wpkh, 1, false, 2);
    if (!c.ok) throw new Error('expected a selection');
    expect(values(c.inputs)).toEqual([50_000n, 100n]);
    expect(weightOf(c.inputs, 1)).toBe(178 * 4);
    expect({ send: c.send, change: c.change, fee: c.fee }).toEqual({ send: amount, change: 0n, fee: 178n });
  });
});
