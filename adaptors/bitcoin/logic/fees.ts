import { InvalidArgumentError, UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import type { BtcContext } from '../context.js';

/** MEDIUM first: it is the default when a withdrawal names no fee. */
export const FEE_LEVELS = ['MEDIUM', 'HIGH', 'LOW'] as const;

/** Confirmation targets in blocks the back end's estimator is asked for. */
const TARGET_BLOCKS: Record<(typeof FEE_LEVELS)[number], number> = { HIGH: 1, MEDIUM: 3, LOW: 6 };

/**
 * Fee rate in whole sat/vB for a withdrawal's `fee`: a level (HIGH/MEDIUM/LOW, estimated for
 * 1/3/6 blocks by the back end, rounded up, at least 1) or a custom integer sat/vB such as "12".
 */
export async function resolveFeeRate(ctx: BtcContext, fee: string): Promise<number> {
  const text = fee.trim().toUpperCase();
  const max = ctx.options.maxFeeRate;
  if (/^\d+$/.test(text)) {
    const rate = Number(text);
    if (rate < 1 || rate > max) throw new InvalidArgumentError(`custom fee ${fee} sat/vB is outside 1..${max}`);
    return rate;
  }
  if (!(text in TARGET_BLOCKS)) {
    throw new InvalidArgumentError(`Unknown fee '${fee}'. Valid values: ${FEE_LEVELS.join(', ')}, or an integer sat/vB`, {
      valid: [...FEE_LEVELS],
    });
  }
  const estimate = await ctx.backend.feeRate(TARGET_BLOCKS[text as keyof typeof TARGET_BLOCKS]);
  const fallback = ctx.options.fallbackFeeRate ?? (ctx.networkName === 'regtest' ? 1 : undefined);
  const rate = estimate === undefined ? fallback : Math.max(1, Math.ceil(estimate));
  if (rate === undefined) throw new UnavailableError(`the ${ctx.backend.kind} back end has no fee estimate for ${text} yet`);
  if (rate > max) throw new UpstreamError(`fee estimate ${rate} sat/vB for ${text} is above maxFeeRate ${max}`, true);
  return rate;
}
