import { InsufficientFundsError } from '../platform/errors.js';
import type { AssetInfo } from './adaptor.js';
import { formatAmount } from './amounts.js';

export interface Shortfall {
  /** The asset that is short (the native asset when only the fee cannot be paid). */
  asset: Pick<AssetInfo, 'symbol' | 'decimals'>;
  /**
   * What the withdrawal needs of `asset`, base units (amount and, for the native asset, the fee,
   * plus what must stay behind, such as a rent-exempt minimum). Always more than `available`:
   * a client compares the two.
   */
  required: bigint;
  /** What can be spent, base units (not what is held: reserves and coins not worth spending left out). */
  available: bigint;
  /** The fee part, in base units of the native asset. */
  fee?: { amount: bigint; asset: Pick<AssetInfo, 'symbol' | 'decimals'> };
  address?: string;
  /** Ledger-specific figures (fee rate, gas), already in the units their names say. */
  extra?: Record<string, unknown>;
}

/**
 * ERR_INSUFFICIENT_FUNDS with the same fields on every ledger: `asset`, `required`, `available`
 * (and `fee`, `feeAsset`) as decimal strings in asset units like every other amount on the wire,
 * with the exact base-unit figures beside them in `*BaseUnits`.
 */
export function insufficientFunds(details: string, s: Shortfall): InsufficientFundsError {
  return new InsufficientFundsError(details, {
    ...(s.address ? { address: s.address } : {}),
    asset: s.asset.symbol,
    required: formatAmount(s.required, s.asset.decimals),
    available: formatAmount(s.available > 0n ? s.available : 0n, s.asset.decimals),
    requiredBaseUnits: s.required.toString(),
    availableBaseUnits: (s.available > 0n ? s.available : 0n).toString(),
    ...(s.fee ? { fee: formatAmount(s.fee.amount, s.fee.asset.decimals), feeAsset: s.fee.asset.symbol, feeBaseUnits: s.fee.amount.toString() } : {}),
    ...s.extra,
  });
}
