import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors.js';
import type { HorizonClient } from '../network/horizon.js';
import { resolveFee } from './fees.js';

/** The transaction's fee field is a uint32 of stroops. */
const MAX_FEE = 2n ** 32n - 1n;

/** A Horizon whose fee stats charge `charged` stroops at every percentile. */
function horizon(charged: string): { horizon: HorizonClient; asked: () => number } {
  let asked = 0;
  const fake = {
    feeStats: () => {
      asked++;
      return Promise.resolve({ last_ledger: '7', last_ledger_base_fee: '100', fee_charged: { p10: charged, p50: charged, p90: charged } });
    },
  };
  return { horizon: fake as unknown as HorizonClient, asked: () => asked };
}

describe('stellar fee ceiling (uint32 stroops)', () => {
  it('takes a custom fee at the ceiling as it is', async () => {
    const h = horizon('100');
    expect(await resolveFee(h.horizon, MAX_FEE.toString(), 100n)).toBe(MAX_FEE);
    expect(h.asked()).toBe(0);
  });

  it('refuses a custom fee above the ceiling with a 422 naming the maximum, before asking Horizon', async () => {
    const h = horizon('100');
    const e = await resolveFee(h.horizon, (MAX_FEE + 1n).toString(), 100n).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.status).toBe(422);
    expect(err.errCode).toBe('ERR_INVALID_ARGUMENTS');
    expect(err.details).toBe(`fee ${MAX_FEE + 1n} stroops exceeds the maximum of ${MAX_FEE}`);
    expect(h.asked()).toBe(0);
  });

  it('takes the charged percentile as the estimate, never below the base fee', async () => {
    expect(await resolveFee(horizon('250').horizon, 'HIGH', 100n)).toBe(250n);
    expect(await resolveFee(horizon('50').horizon, 'LOW', 100n)).toBe(100n);
  });
});
