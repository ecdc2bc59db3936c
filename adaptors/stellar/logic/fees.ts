import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { HorizonClient } from '../network/horizon.js';

/**
 * Named fee levels, the first the default. Each maps to a percentile of the per-operation
 * fees charged in recent ledgers (Horizon `/fee_stats` `fee_charged`). A custom fee is a
 * decimal count of stroops per operation, at least the ledger's base fee.
 */
export const FEE_LEVELS = ['MEDIUM', 'HIGH', 'LOW'] as const;

const PERCENTILE: Record<(typeof FEE_LEVELS)[number], string> = { HIGH: 'p90', MEDIUM: 'p50', LOW: 'p10' };

/** The transaction's fee field is a uint32 of stroops. */
const MAX_FEE = 2n ** 32n - 1n;

/** Fee per operation, stroops, never below the ledger's base fee. */
export async function resolveFee(horizon: HorizonClient, fee: string, baseFee: bigint): Promise<bigint> {
  const level = String(fee).toUpperCase() as (typeof FEE_LEVELS)[number];
  if (level in PERCENTILE) {
    const stats = await horizon.feeStats();
    const charged = BigInt(stats.fee_charged[PERCENTILE[level]] ?? stats.last_ledger_base_fee);
    return charged > baseFee ? charged : baseFee;
  }
  if (!/^\d{1,10}$/.test(String(fee))) {
    throw new InvalidArgumentError(`Unknown fee '${fee}'. Valid values: ${FEE_LEVELS.join(', ')}, or stroops per operation as a whole number`, {
      valid: [...FEE_LEVELS],
    });
  }
  const stroops = BigInt(fee);
  if (stroops < baseFee) throw new InvalidArgumentError(`fee ${stroops} stroops is below the ledger's base fee of ${baseFee}`);
  if (stroops > MAX_FEE) throw new InvalidArgumentError(`fee ${stroops} stroops exceeds the maximum of ${MAX_FEE}`);
  return stroops;
}
