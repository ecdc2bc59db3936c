import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors.js';
import type { HorizonClient } from '../network/horizon.js';
import { resolveFee } from './fees.js';

/** The transaction's fee field is a uint32 of stroops. */
const MAX_FEE = 2n ** 32n - 1n;

/** A Horizon whose fee stats charge `charged` stroops at every percentile, or each its own. */
function horizon(charged: string | { p10: string; p50: string; p90: string }): { horizon: HorizonClient; asked: () => number } {
  let asked = 0;
  const feeCharged = typeof charged === 'string' ? { p10: charged, p50: charged, p90: charged } : charged;
  const fake = {
    feeStats: () => {
      asked++;
      return Promise.resolve({ last_ledger: '7', last_ledger_base_fee: '100', fee_charged: feeCharged });
    },
  };
  return { horizon: fake as unknown as HorizonClient, asked: () => asked };
}

describe('stellar fee per operation', () => {
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

  it('takes the 10th, 50th and 90th percentile of the fees charged for LOW, MEDIUM and HIGH', async () => {
    const h = horizon({ p10: '110', p50: '150', p90: '190' });
    expect(await resolveFee(h.horizon, 'LOW', 100n)).toBe(110n);
    expect(await resolveFee(h.horizon, 'medium', 100n)).toBe(150n);
    expect(await resolveFee(h.horizon, 'HIGH', 100n)).toBe(190n);
  });

  it("takes a custom fee at the ledger's base fee and refuses one below it with a 422, before asking Horizon", async () => {
    const h = horizon('100');
    expect(await resolveFee(h.horizon, '100', 100n)).toBe(100n);
    const e = await resolveFee(h.horizon, '99', 100n).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(422);
    expect((e as AppError).details).toBe("fee 99 stroops is below the ledger's base fee of 100");
    expect(h.asked()).toBe(0);
  });

  it('refuses anything but a level or a whole number of at most 10 digits with a 422 naming the valid values', async () => {
    const h = horizon('100');
    for (const fee of ['fast', '100abc', 'abc100', '100.5', '-100', '', '10000000000']) {
      const e = await resolveFee(h.horizon, fee, 100n).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e, fee).toBeInstanceOf(AppError);
      expect((e as AppError).status).toBe(422);
      expect((e as AppError).details).toBe(`Unknown fee '${fee}'. Valid values: MEDIUM, HIGH, LOW, or stroops per operation as a whole number`);
      expect((e as AppError).fields).toEqual({ valid: ['MEDIUM', 'HIGH', 'LOW'] });
    }
    expect(h.asked()).toBe(0);
  });
});
