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
    // Trailing zeros past the asset's decimals say nothing more.
    ['1.500', 1, 15n],
    ['007.10', 2, 710n],
    // A JSON number in exponent form (as JavaScript writes below 1e-6 and from 1e21), expanded without floats.
    [1.23e-7, 9, 123n],
    [5e-7, 7, 5n],
    [1e21, 0, 10n ** 21n],
    [1.2345e21, 2, 12345n * 10n ** 19n],
    // Fifteen significant digits are exact in a JSON number; zeros around them do not count.
    [123456789012345, 0, 123456789012345n],
    [0.000123456789012345, 18, 123456789012345n],
    [1e18, 0, 10n ** 18n],
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
    [1234567890123456, 'as a decimal string'],
    [0.1234567890123456, 'as a decimal string'],
    [Number.POSITIVE_INFINITY, 'finite'],
    [1e-7, 'at most 2'],
    [null, 'positive decimal'],
    [{}, 'positive decimal'],
  ] as const)('%s → 422 (%s)', (input, message) => {
    expect(() => parseAmount(input, 2)).toThrowError(InvalidArgumentError);
    expect(() => parseAmount(input, 2)).toThrowError(message);
  });

  it('names what it parsed and why it refused it', () => {
    expect(() => parseAmount('1.123', 2, 'fee')).toThrowError('fee 1.123 has 3 decimal places; this asset allows at most 2');
    expect(() => parseAmount('-1', 2, 'fee')).toThrowError('fee must be positive, got -1');
    expect(() => parseAmount('x', 2, 'fee')).toThrowError('fee "x" is not a decimal number');
    expect(() => parseAmount('0', 2, 'fee')).toThrowError('fee must be greater than zero');
    expect(() => parseAmount(Number.NaN, 2, 'fee')).toThrowError('fee must be a finite number');
    expect(() => parseAmount(true, 2, 'fee')).toThrowError('fee must be a positive decimal number or string');
    expect(() => parseAmount(1234567890123456, 2, 'fee')).toThrowError(
      'fee 1234567890123456 has more significant digits than a JSON number carries exactly; send it as a decimal string',
    );
    expect(() => parseAmount('1.123', 2)).toThrowError(/: amount 1\.123 has/);
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
    [4200n, 0, '4200'],
    [5n, 2, '0.05'],
    [100n, 2, '1'],
    [1050n, 3, '1.05'],
    [-1n, 18, '-0.000000000000000001'],
    [-100n, 2, '-1'],
  ] as const)('%s / 10^%i → %s', (units, decimals, text) => {
    expect(formatAmount(units, decimals)).toBe(text);
    if (units > 0n) expect(parseAmount(text, decimals)).toBe(units);
  });
});
