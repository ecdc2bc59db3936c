import { InvalidArgumentError } from '../platform/errors.js';

/**
 * Amounts are bigint base units inside the service and decimal strings outside.
 * These two functions are the only conversion points; nothing goes through floats.
 */

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/** How JavaScript writes a number in exponent form: one digit, a fraction maybe, a signed exponent. */
const EXPONENT = /^(\d)(?:\.(\d+))?e([+-]\d+)$/;

/** A JSON number is only trusted while its shortest text names one decimal exactly. */
const MAX_NUMBER_SIGNIFICANT_DIGITS = 15;

/**
 * Expands `1.5e-7` into `0.00000015` without arithmetic on floats. JavaScript writes a number in
 * exponent form only below 1e-6 and from 1e21, with a non-zero first digit (ECMAScript
 * Number::toString), so the point lands before every digit or after them all.
 */
function expandExponent(text: string): string {
  const m = EXPONENT.exec(text);
  if (!m) return text;
  const digits = (m[1] as string) + (m[2] ?? '');
  const point = 1 + Number(m[3]);
  return point < 0 ? `0.${'0'.repeat(-point)}${digits}` : digits + '0'.repeat(point - digits.length);
}

function significantDigits(text: string): number {
  return text.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/**
 * Parses a client amount (number or decimal string) into base units.
 * Rejects zero, negatives, non-numbers, and more fractional digits than the asset has, and
 * text around the digits (whitespace too): what is stored and shown is the client's text, so
 * it must be the number itself. A caller whose input may be padded trims it first, on purpose.
 */
export function parseAmount(input: unknown, decimals: number, what = 'amount'): bigint {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new InvalidArgumentError(`${what} must be a finite number`);
    text = expandExponent(String(input));
    if (significantDigits(text) > MAX_NUMBER_SIGNIFICANT_DIGITS) {
      throw new InvalidArgumentError(`${what} ${String(input)} has more significant digits than a JSON number carries exactly; send it as a decimal string`);
    }
  } else if (typeof input === 'string') {
    text = input;
  } else {
    throw new InvalidArgumentError(`${what} must be a positive decimal number or string`);
  }
  if (text.startsWith('-')) throw new InvalidArgumentError(`${what} must be positive, got ${text}`);
  const m = DECIMAL.exec(text);
  if (!m) throw new InvalidArgumentError(`${what} ${JSON.stringify(text)} is not a decimal number`);
  const intPart = m[1] as string;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) {
    throw new InvalidArgumentError(`${what} ${text} has ${frac.length} decimal places; this asset allows at most ${decimals}`);
  }
  const units = BigInt(intPart + frac.padEnd(decimals, '0'));
  if (units === 0n) throw new InvalidArgumentError(`${what} must be greater than zero`);
  return units;
}

/** Renders base units as a decimal string in asset units, without trailing zeros. */
export function formatAmount(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const s = abs.toString().padStart(decimals + 1, '0');
  const intPart = s.slice(0, s.length - decimals);
  const frac = decimals ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${intPart}${frac ? `.${frac}` : ''}`;
}
