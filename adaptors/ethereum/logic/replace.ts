import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { ReplacementInput, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import type { EthContext } from '../context.js';
import { parseFee, quoteFee, type FeeQuote } from './fees.js';
import { unsignedOf } from './serialize.js';
import { ethereumState, withFee, type EthereumState } from './state.js';
import { nonceScope } from './nonce.js';

const PLAIN_TRANSFER_GAS = 21_000n;
/** geth's default price bump (txpool.pricebump 10%); other clients ask the same or less. */
const bump = (v: bigint): bigint => (v * 110n + 99n) / 100n;
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const gwei = (wei: bigint): string => `${formatAmount(wei, 9)} gwei`;

/** The fee of the replacement: the asked level or figure (default HIGH), raised to the +10% minimum on every fee field. */
async function replacementFee(ctx: EthContext, old: EthereumState, fee: string | undefined): Promise<FeeQuote> {
  const asked = await quoteFee(ctx, parseFee(fee ?? 'HIGH'));
  if (old.type === 0 || asked.type === 0) {
    const minimum = bump(BigInt(old.gasPrice ?? old.maxFeePerGas ?? '0'));
    const price = asked.type === 0 ? asked.gasPrice : asked.maxFeePerGas;
    if (fee && price < minimum)
      throw new InvalidArgumentError(`fee ${gwei(price)} is below the replacement minimum of ${gwei(minimum)} (+10%)`, {
        field: 'fee',
        minimum: minimum.toString(),
      });
    return { type: 0, gasPrice: max(price, minimum) };
  }
  const minFee = bump(BigInt(old.maxFeePerGas ?? '0'));
  const minTip = bump(BigInt(old.maxPriorityFeePerGas ?? '0'));
  if (fee && asked.maxFeePerGas < minFee) {
    throw new InvalidArgumentError(`fee ${gwei(asked.maxFeePerGas)} is below the replacement minimum of ${gwei(minFee)} (+10% of the max fee)`, {
      field: 'fee',
      minimum: minFee.toString(),
    });
  }
  const tip = max(asked.maxPriorityFeePerGas, minTip);
  return { type: 2, maxFeePerGas: max(max(asked.maxFeePerGas, minFee), tip), maxPriorityFeePerGas: tip };
}

/**
 * A replacement with the same nonce: the same call with higher fees (speed-up), or a
 * zero-value transfer from the vault to itself (cancel), which only uses up the nonce. Both
 * raise the max fee and the tip by at least 10 %, what nodes ask to replace a pooled transaction.
 */
export async function replace(ctx: EthContext, input: ReplacementInput): Promise<UnsignedWithdrawal> {
  const old = ethereumState.decode(input.unsigned.state);
  const payload = input.unsigned.payloads[0];
  if (!payload) throw new InvalidArgumentError('the withdrawal has no signing payload to replace');
  const fee = await replacementFee(ctx, old, input.fee);
  // The old fee fields go; withFee sets those of the new fee type only.
  const { type: _type, maxFeePerGas: _maxFee, maxPriorityFeePerGas: _tip, gasPrice: _price, ...kept } = old;
  const base =
    input.kind === 'cancel'
      ? {
          ...kept,
          to: old.from,
          value: '0',
          data: '0x',
          gasLimit: PLAIN_TRANSFER_GAS.toString(),
          recipient: old.from,
          asset: ctx.nativeAsset.symbol,
          amount: '0',
        }
      : kept;
  const state = withFee(base, fee);
  const perGas = fee.type === 2 ? fee.maxFeePerGas : fee.gasPrice;
  // Either transaction may land: the nonce's spend is the larger of the two.
  await ctx.deps.reservations.raiseSpend(nonceScope(ctx, old.from), BigInt(old.nonce), {
    [ctx.nativeAsset.symbol]: BigInt(state.value) + BigInt(state.gasLimit) * perGas,
  });
  return unsignedOf(state, payload, BigInt(state.gasLimit) * perGas);
}

/** What keeps a pooled transaction out of blocks, as far as the node shows it. */
export async function stuckReason(ctx: EthContext, unsigned: UnsignedWithdrawal): Promise<string | undefined> {
  const s = ethereumState.decode(unsigned.state);
  const [block, minedNonceHex] = await ctx.rpc.batch<unknown>([
    { method: 'eth_getBlockByNumber', params: ['latest', false] },
    { method: 'eth_getTransactionCount', params: [s.from, 'latest'] },
  ]);
  const minedNonce = BigInt(minedNonceHex as string);
  if (minedNonce < BigInt(s.nonce)) return `nonce ${s.nonce} waits for nonce ${minedNonce} of ${s.from}, which is not mined (predecessor missing)`;
  const baseFee = (block as { baseFeePerGas?: string } | null)?.baseFeePerGas;
  const maxFee = BigInt(s.maxFeePerGas ?? s.gasPrice ?? '0');
  if (baseFee !== undefined && maxFee < BigInt(baseFee)) return `its max fee ${gwei(maxFee)} is under the current base fee ${gwei(BigInt(baseFee))}`;
  return undefined;
}
