import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors.js';
import type { SolanaContext } from '../context.js';
import { priorityLamports, resolvePriorityFee } from './fees.js';

/** The ceiling on a custom priority fee, micro-lamports per compute unit. */
const MAX_MICRO_LAMPORTS = 10_000_000_000n;

/** A context whose RPC reports `fees` as the recent prioritization fees. */
function context(fees: number[]): { ctx: SolanaContext; asked: () => number; accounts: () => string[] } {
  let asked = 0;
  let accounts: string[] = [];
  const rpc = {
    getRecentPrioritizationFees: (writable: string[]) => {
      asked++;
      accounts = writable;
      return Promise.resolve(fees.map((prioritizationFee, slot) => ({ slot, prioritizationFee })));
    },
  };
  return { ctx: { ledgerId: 'sol', rpc } as unknown as SolanaContext, asked: () => asked, accounts: () => accounts };
}

describe('solana priority fee', () => {
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

  it('takes no priority fee when no recent slot paid one', async () => {
    const { ctx } = context([]);
    expect(await resolvePriorityFee(ctx, 'HIGH', [])).toBe(0n);
  });

  it('asks the node about the first 128 writable accounts, the most getRecentPrioritizationFees takes', async () => {
    const { ctx, accounts } = context([7]);
    const writable = Array.from({ length: 130 }, (_, i) => `account-${i}`);
    expect(await resolvePriorityFee(ctx, 'LOW', writable)).toBe(7n);
    expect(accounts()).toEqual(writable.slice(0, 128));
  });

  it('refuses anything but a level or a whole number of at most 12 digits with a 422 naming the valid values, before asking the node', async () => {
    const { ctx, asked } = context([1]);
    for (const fee of ['fast', '12abc', 'abc12', '1.5', '-1', '', '1234567890123']) {
      const e = await resolvePriorityFee(ctx, fee, []).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e, fee).toBeInstanceOf(AppError);
      expect((e as AppError).status).toBe(422);
      expect((e as AppError).details).toBe(`Unknown fee '${fee}'. Valid values: MEDIUM, HIGH, LOW, or micro-lamports per compute unit as a whole number`);
      expect((e as AppError).fields).toEqual({ valid: ['MEDIUM', 'HIGH', 'LOW'] });
    }
    expect(asked()).toBe(0);
  });
});

describe('solana priority fee in lamports', () => {
  it('is the price times the compute-unit limit, in lamports, rounded up', () => {
    expect(priorityLamports(0n, 200_000)).toBe(0n);
    expect(priorityLamports(1n, 1)).toBe(1n);
    expect(priorityLamports(1n, 1_000_000)).toBe(1n);
    expect(priorityLamports(1n, 1_000_001)).toBe(2n);
    expect(priorityLamports(3n, 333_333)).toBe(1n);
    expect(priorityLamports(5_000n, 200_000)).toBe(1_000n);
  });
});
