import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { SolanaContext } from '../context.js';

/**
 * Priority-fee levels, the first the default: percentiles of the prioritization fees paid in
 * recent slots by transactions touching the same writable accounts (getRecentPrioritizationFees).
 * A custom fee is a whole number of micro-lamports per compute unit.
 */
export const FEE_LEVELS = ['MEDIUM', 'HIGH', 'LOW'] as const;
const PERCENTILE: Record<(typeof FEE_LEVELS)[number], number> = { LOW: 25, MEDIUM: 50, HIGH: 90 };

/** Every signature costs this many lamports on Solana, before any priority fee. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** A guard against a mistyped custom fee: 0.01 lamport per compute unit × 10^6 … 10 SOL on 1M CU. */
const MAX_MICRO_LAMPORTS = 10_000_000_000n;

export async function resolvePriorityFee(ctx: SolanaContext, fee: string, writable: string[]): Promise<bigint> {
  const level = String(fee).toUpperCase() as (typeof FEE_LEVELS)[number];
  if (level in PERCENTILE) {
    const recent = await ctx.rpc.getRecentPrioritizationFees(writable.slice(0, 128));
    const values = recent.map((r) => BigInt(r.prioritizationFee)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (values.length === 0) return 0n;
    return values[Math.min(values.length - 1, Math.floor((values.length * PERCENTILE[level]) / 100))] as bigint;
  }
  if (!/^\d{1,12}$/.test(String(fee))) {
    throw new InvalidArgumentError(`Unknown fee '${fee}'. Valid values: ${FEE_LEVELS.join(', ')}, or micro-lamports per compute unit as a whole number`, {
      valid: [...FEE_LEVELS],
    });
  }
  const micro = BigInt(fee);
  if (micro > MAX_MICRO_LAMPORTS) throw new InvalidArgumentError(`fee ${micro} micro-lamports per compute unit exceeds the maximum of ${MAX_MICRO_LAMPORTS}`);
  return micro;
}

/** Lamports a priority fee costs at most: price × compute-unit limit, rounded up. */
export function priorityLamports(microLamportsPerCu: bigint, computeUnitLimit: number): bigint {
  return (microLamportsPerCu * BigInt(computeUnitLimit) + 999_999n) / 1_000_000n;
}
