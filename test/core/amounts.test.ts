import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/platform/errors.js';
import { formatAmount, parseAmount } from '../../src/ledger/amounts.js';

describe('parseAmount', () => {
  it.each([
    ['1', 18, 10n ** 18n],
    ['0.1', 18, 10n ** 17n],
    ['1.000000000000000001', 18, 10n ** 18n + 1n],
    ['2.50', 2, 250n],
    ['12345678901234567890.12345678', 8, 1234567890123456789012345678n],
    [0.1, 18, 10n ** 17n],
    [1e-7, 8, 10n],
    [1.5e3, 0, 1500n],
    [123.456, 3, 123456n],
  ] as const)('%s with %i decimals → %s', (input, decimals, expected) => {
    expect(parseAmount(input, decimals)).toBe(expected);
  });

  it.each([
    ['0', 'greater than zero'],
    ['0.000', 'greater than zero'],
    ['-1', 'positive'],
    ['1.123', 'at most 2'],
    ['abc', 'not a decimal'],
    ['1e5', 'not a decimal'],
    ['', 'not a decimal'],
    ['.5', 'not a decimal'],
    // What is stored and shown is the client's text: it must be the number alone.
    [' 2.5', 'not a decimal'],
    ['2.5 ', 'not a decimal'],
    ['\t0.01\n', 'not a decimal'],
    ['\u00a01', 'not a decimal'],
    [Number.NaN, 'finite'],
    [-0.5, 'positive'],
    [Number('12345678901234567890'), 'as a decimal string'],
    [null, 'positive decimal'],
    [{}, 'positive decimal'],
  ] as const)('%s → 422 (%s)', (input, message) => {
    expect(() => parseAmount(input, 2)).toThrowError(InvalidArgumentError);
    expect(() => parseAmount(input, 2)).toThrowError(message);
  });
});

describe('formatAmount', () => {
  it.each([
    [10n ** 18n, 18, '1'],
    [1n, 18, '0.000000000000000001'],
    [1234500n, 6, '1.2345'],
    [0n, 8, '0'],
    [-150n, 2, '-1.5'],
    [42n, 0, '42'],
  ] as const)('%s / 10^%i → %s', (units, decimals, text) => {
    expect(formatAmount(units, decimals)).toBe(text);
    if (units > 0n) expect(parseAmount(text, decimals)).toBe(units);
  });
});
