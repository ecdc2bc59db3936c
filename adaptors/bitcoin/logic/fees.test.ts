import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors.js';
import type { BtcContext } from '../context.js';
import { bitcoinOptionsSchema } from '../options.js';
import { resolveFeeRate } from './fees.js';

/** A context (mainnet unless told) whose back end answers every estimate with `estimate` sat/vB. */
function context(
  maxFeeRate: number,
  estimate: number | undefined,
  o: { networkName?: string; fallbackFeeRate?: number } = {},
): { ctx: BtcContext; asked: number[] } {
  const asked: number[] = [];
  const options = bitcoinOptionsSchema.parse({
    url: 'http://esplora.invalid',
    maxFeeRate,
    ...(o.fallbackFeeRate ? { fallbackFeeRate: o.fallbackFeeRate } : {}),
  });
  const backend = {
    kind: 'esplora',
    feeRate: (targetBlocks: number): Promise<number | undefined> => {
      asked.push(targetBlocks);
      return Promise.resolve(estimate);
    },
  };
  return { ctx: { ledgerId: 'btc', networkName: o.networkName ?? 'mainnet', options, backend } as unknown as BtcContext, asked };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('bitcoin fee rate ceiling (maxFeeRate)', () => {
  it('takes a custom fee at the ceiling as it is', async () => {
    const { ctx, asked } = context(50, 3);
    expect(await resolveFeeRate(ctx, '50')).toBe(50);
    expect(asked).toEqual([]);
  });

  it('refuses a custom fee above the ceiling with a 422 naming the range, before asking the back end', async () => {
    const { ctx, asked } = context(50, 3);
    const e = await refusal(resolveFeeRate(ctx, '51'));
    expect(e.status).toBe(422);
    expect(e.errCode).toBe('ERR_INVALID_ARGUMENTS');
    expect(e.retryable).toBe(false);
    expect(e.details).toBe('custom fee 51 sat/vB is outside 1..50');
    expect(asked).toEqual([]);
  });

  it('takes an estimate at the ceiling, rounded up', async () => {
    const { ctx, asked } = context(50, 49.2);
    expect(await resolveFeeRate(ctx, 'high')).toBe(50);
    expect(asked).toEqual([1]);
  });

  it('refuses an estimate above the ceiling as a retryable upstream error instead of paying it', async () => {
    const { ctx, asked } = context(50, 50.01);
    const e = await refusal(resolveFeeRate(ctx, 'MEDIUM'));
    expect(e.status).toBe(502);
    expect(e.errCode).toBe('ERR_UPSTREAM');
    expect(e.retryable).toBe(true);
    expect(e.details).toBe('fee estimate 51 sat/vB for MEDIUM is above maxFeeRate 50');
    expect(asked).toEqual([3]);
  });

  it('applies the default ceiling of 1000 sat/vB to both', async () => {
    const { ctx } = context(1_000, 1_000.5);
    expect((await refusal(resolveFeeRate(ctx, '1001'))).errCode).toBe('ERR_INVALID_ARGUMENTS');
    expect((await refusal(resolveFeeRate(ctx, 'LOW'))).errCode).toBe('ERR_UPSTREAM');
  });
});

describe('bitcoin fee levels and custom rates', () => {
  it('takes the lowest custom rate, 1 sat/vB, and refuses 0 before asking the back end', async () => {
    const { ctx, asked } = context(50, 3);
    expect(await resolveFeeRate(ctx, '1')).toBe(1);
    expect((await refusal(resolveFeeRate(ctx, '0'))).details).toBe('custom fee 0 sat/vB is outside 1..50');
    expect(asked).toEqual([]);
  });

  it('reads a level or a rate whatever its case and surrounding spaces', async () => {
    const { ctx, asked } = context(50, 7);
    expect(await resolveFeeRate(ctx, ' 12 ')).toBe(12);
    expect(await resolveFeeRate(ctx, ' low ')).toBe(7);
    expect(asked).toEqual([6]);
  });

  it('refuses a rate with anything but digits, and an unknown level, naming the valid values, without asking the back end', async () => {
    const { ctx, asked } = context(50, 7);
    for (const fee of ['12abc', 'abc12', '1.5', '-3', 'FAST']) {
      const e = await refusal(resolveFeeRate(ctx, fee));
      expect(e.status, fee).toBe(422);
      expect(e.details, fee).toBe(`Unknown fee '${fee}'. Valid values: MEDIUM, HIGH, LOW, or an integer sat/vB`);
      expect(e.fields, fee).toEqual({ valid: ['MEDIUM', 'HIGH', 'LOW'] });
    }
    expect(asked).toEqual([]);
  });

  it('asks the back end for 1, 3 and 6 blocks, and never takes less than 1 sat/vB', async () => {
    const { ctx, asked } = context(50, 0.2);
    expect([await resolveFeeRate(ctx, 'HIGH'), await resolveFeeRate(ctx, 'MEDIUM'), await resolveFeeRate(ctx, 'LOW')]).toEqual([1, 1, 1]);
    expect(asked).toEqual([1, 3, 6]);
  });

  it('without an estimate: the configured fallback, else 1 sat/vB on regtest only, else a retryable 503', async () => {
    expect(await resolveFeeRate(context(50, undefined, { fallbackFeeRate: 9 }).ctx, 'HIGH')).toBe(9);
    expect(await resolveFeeRate(context(50, undefined, { networkName: 'regtest' }).ctx, 'HIGH')).toBe(1);
    expect(await resolveFeeRate(context(50, undefined, { networkName: 'regtest', fallbackFeeRate: 4 }).ctx, 'LOW')).toBe(4);
    const e = await refusal(resolveFeeRate(context(50, undefined).ctx, 'MEDIUM'));
    expect(e.status).toBe(503);
    expect(e.retryable).toBe(true);
    expect(e.details).toBe('the esplora back end has no fee estimate for MEDIUM yet');
    // An estimate, when there is one, wins over the fallback.
    expect(await resolveFeeRate(context(50, 6, { fallbackFeeRate: 9 }).ctx, 'HIGH')).toBe(6);
  });
});
