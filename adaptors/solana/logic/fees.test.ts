import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors.js';
import type { SolanaContext } from '../context.js';
import { resolvePriorityFee } from './fees.js';

/** The ceiling on a custom priority fee, micro-lamports per compute unit. */
const MAX_MICRO_LAMPORTS = 10_000_000_000n;

/** A context whose RPC reports `fees` as the recent prioritization fees. */
function context(fees: number[]): { ctx: SolanaContext; asked: () => number } {
  let asked = 0;
  const rpc = {
    getRecentPrioritizationFees: () => {
      asked++;
      return Promise.resolve(fees.map((prioritizationFee, slot) => ({ slot, prioritizationFee })));
    },
  };
  return { ctx: { ledgerId: 'sol', rpc } as unknown as SolanaContext, asked: () => asked };
}

describe('solana priority fee ceiling', () => {
  it('takes a custom fee at the ceiling as it is', async () => {
    const { ctx, asked } = context([1]);
    expect(await resolvePriorityFee(ctx, MAX_MICRO_LAMPORTS.toString(), [])).toBe(MAX_MICRO_LAMPORTS);
    expect(asked()).toBe(0);
  });

  it('refuses a custom fee above the ceiling with a 422 naming the maximum, before asking the node', async () => {
    const { ctx, asked } = context([1]);
    const e = await resolvePriorityFee(ctx, (MAX_MICRO_LAMPORTS + 1n).toString(), []).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.status).toBe(422);
    expect(err.errCode).toBe('ERR_INVALID_ARGUMENTS');
    expect(err.details).toBe(`fee ${MAX_MICRO_LAMPORTS + 1n} micro-lamports per compute unit exceeds the maximum of ${MAX_MICRO_LAMPORTS}`);
    expect(asked()).toBe(0);
  });

  it('takes the level percentile of recent fees as the estimate', async () => {
    const { ctx } = context([5, 1, 3, 40, 2]);
    expect(await resolvePriorityFee(ctx, 'MEDIUM', [])).toBe(3n);
    expect(await resolvePriorityFee(ctx, 'HIGH', [])).toBe(40n);
  });
});
