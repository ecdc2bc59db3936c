import { InvalidArgumentError } from '../../../src/platform/errors.js';
import { formatAmount, parseAmount } from '../../../src/ledger/amounts.js';
import type { EthContext } from '../context.js';
import type { FeeHistory } from '../network/chain-reads.js';
import { JsonRpcError } from '../network/json-rpc.js';

/** Named fee levels; the first is the default. A custom constant is a gwei figure (max fee per gas). */
export const FEE_LEVELS = ['MEDIUM', 'HIGH', 'LOW'] as const;

export type FeeLevel = (typeof FEE_LEVELS)[number];

/** How a withdrawal's `fee` was asked for: a named level, or a custom max fee per gas in wei. */
export type FeeChoice = { level: FeeLevel } | { customWei: bigint };

/** Fee fields of the transaction to build: type 2 (EIP-1559) or type 0 (legacy, EIP-155). */
export type FeeQuote = { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint };

const GWEI = /^\d+(?:\.\d+)?$/;

/** Parsed before any node call, so a typo is a 422 without touching the chain. */
export function parseFee(fee: string): FeeChoice {
  const text = typeof fee === 'string' ? fee.trim() : '';
  const level = FEE_LEVELS.find((l) => l === text.toUpperCase());
  if (level) return { level };
  if (GWEI.test(text)) return { customWei: parseAmount(text, 9, 'fee (gwei)') };
  throw new InvalidArgumentError(`Unknown fee '${String(fee)}'. Valid values: HIGH, MEDIUM, LOW or a gwei figure (e.g. 35 or 1.5)`, {
    field: 'fee',
    valid: [...FEE_LEVELS],
  });
}

/** The fee's upper bound per gas unit: what `gasLimit × it` may cost at most. */
export function maxFeePerGas(q: FeeQuote): bigint {
  return q.type === 2 ? q.maxFeePerGas : q.gasPrice;
}

const FEE_HISTORY_BLOCKS = 20;
const PERCENTILES = { LOW: 10, MEDIUM: 50, HIGH: 90 } as const;
// An idle chain's blocks carry no tips; a tiny floor keeps nodes with a minimum tip (geth's
// default is in this range) from sitting on the transaction.
const MIN_PRIORITY_FEE = 1_000_000n;
// Legacy gasPrice is eth_gasPrice's suggestion scaled per level, in percent.
const LEGACY_SCALE = { LOW: 100n, MEDIUM: 120n, HIGH: 150n } as const;

function median(values: bigint[]): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor(sorted.length / 2)] as bigint;
}

/** Priority fee per level: the median over recent non-empty blocks of that level's reward percentile. */
function priorityFees(history: FeeHistory): Record<FeeLevel, bigint> {
  const rewards = (history.reward ?? []).filter((_, i) => (history.gasUsedRatio[i] ?? 0) > 0);
  const columns = Object.values(PERCENTILES).map((_, col) => median(rewards.map((r) => BigInt(r[col] ?? '0x0'))));
  const [low, medium, high] = columns.map((c) => (c < MIN_PRIORITY_FEE ? MIN_PRIORITY_FEE : c)) as [bigint, bigint, bigint];
  // A node's percentiles rise within each block, and then so do their medians; a node that
  // answers them out of order must still never quote a level below the one under it.
  const mid = medium < low ? low : medium;
  return { LOW: low, MEDIUM: mid, HIGH: high < mid ? mid : high };
}

/** The next block's base fee as the node computes it: the last entry of a fee history (0 before London). */
const nextBaseFee = (history: FeeHistory): bigint => BigInt(history.baseFeePerGas.at(-1) ?? '0x0');

/**
 * A custom fee under the next block's base fee is refused before anything is reserved: the
 * node refuses the transaction (retryably, so it would wait SIGNED for good), and its reserved
 * nonce would block every later withdrawal of the address.
 */
function refuseBelowBaseFee(customWei: bigint, baseFee: bigint): void {
  if (customWei >= baseFee) return;
  throw new InvalidArgumentError(`fee ${formatAmount(customWei, 9)} gwei is below the next block's base fee of ${formatAmount(baseFee, 9)} gwei`, {
    field: 'fee',
    baseFeePerGas: baseFee.toString(),
  });
}

/**
 * Legacy: `eth_gasPrice` scaled per level; a custom figure is the gas price, which on a chain
 * with a base fee must reach the next block's (EIP-1559 takes a legacy price as max fee and tip).
 */
async function quoteLegacyFee(ctx: EthContext, choice: FeeChoice): Promise<FeeQuote> {
  if ('level' in choice) {
    const suggested = await ctx.reads.gasPrice();
    return { type: 0, gasPrice: (suggested * LEGACY_SCALE[choice.level]) / 100n };
  }
  refuseBelowBaseFee(choice.customWei, await legacyNextBaseFee(ctx));
  return { type: 0, gasPrice: choice.customWei };
}

/** JSON-RPC 2.0's "method not found". */
const METHOD_NOT_FOUND = -32601;

/**
 * The next block's base fee on a legacy ledger. A node without `eth_feeHistory` serves a chain
 * that has none. A node that refuses it otherwise (Hardhat before London: "eth_feeHistory is
 * disabled. It only works with the London hardfork or a later one.", -32000) is asked for its
 * latest block, whose `baseFeePerGas` is absent before London. A failed call (down, rate
 * limited) is no answer: thrown, so the request is retried.
 */
async function legacyNextBaseFee(ctx: EthContext): Promise<bigint> {
  try {
    return nextBaseFee(await ctx.reads.feeHistory(1, []));
  } catch (e) {
    if (!(e instanceof JsonRpcError)) throw e;
    if (e.rpcCode === METHOD_NOT_FOUND) return 0n;
    const latest = await ctx.rpc.call<{ baseFeePerGas?: string } | null>('eth_getBlockByNumber', ['latest', false]);
    return latest?.baseFeePerGas ? BigInt(latest.baseFeePerGas) : 0n;
  }
}

/**
 * EIP-1559: tips from `eth_feeHistory` percentiles 10/50/90 over 20 blocks for LOW/MEDIUM/HIGH,
 * max fee = 2 × next block's base fee + tip, which survives six full blocks of base fee rises.
 * A custom gwei figure is the max fee; its tip is the MEDIUM tip, capped at the max fee.
 * Legacy: see quoteLegacyFee.
 */
export async function quoteFee(ctx: EthContext, choice: FeeChoice): Promise<FeeQuote> {
  if (ctx.options.feeMode === 'legacy') return quoteLegacyFee(ctx, choice);
  const history = await ctx.reads.feeHistory(FEE_HISTORY_BLOCKS, Object.values(PERCENTILES));
  const tips = priorityFees(history);
  if ('customWei' in choice) {
    refuseBelowBaseFee(choice.customWei, nextBaseFee(history));
    const tip = tips.MEDIUM < choice.customWei ? tips.MEDIUM : choice.customWei;
    return { type: 2, maxFeePerGas: choice.customWei, maxPriorityFeePerGas: tip };
  }
  const tip = tips[choice.level];
  return { type: 2, maxFeePerGas: 2n * nextBaseFee(history) + tip, maxPriorityFeePerGas: tip };
}
