import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors.js';
import type { BtcContext } from '../context.js';
import { bitcoinOptionsSchema } from '../options.js';
import { resolveFeeRate } from './fees.js';

/** A mainnet context whose back end answers every estimate with `estimate` sat/vB. */
function context(maxFeeRate: number, estimate: number | undefined): { ctx: BtcContext; asked: number[] } {
  const asked: number[] = [];
  const options = bitcoinOptionsSchema.parse({ url: 'http://esplora.invalid', maxFeeRate });
  const backend = {
    kind: 'esplora',
    feeRate: (targetBlocks: number): Promise<number | undefined> => {
      asked.push(targetBlocks);
      return Promise.resolve(estimate);
    },
  };
  return { ctx: { ledgerId: 'btc', networkName: 'mainnet', options, backend } as unknown as BtcContext, asked };
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
