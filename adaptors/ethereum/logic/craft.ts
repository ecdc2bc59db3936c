import { InvalidArgumentError, PermanentLedgerError } from '../../../src/platform/errors.js';
import type { UnsignedWithdrawal, VaultAddress, VaultSource, WithdrawalIntent } from '../../../src/ledger/adaptor.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import { insufficientFunds } from '../../../src/ledger/insufficient-funds.js';
import { reserveAndBuild } from '../../../src/ledger/reserve-and-build.js';
import type { EthContext } from '../context.js';
import { JsonRpcError } from '../network/json-rpc.js';
import { ERC20 } from './erc20.js';
import type { AccountAtBlock } from '../network/chain-reads.js';
import { maxFeePerGas, parseFee, quoteFee, type FeeQuote } from './fees.js';
import { nonceScope, reserveNonce, type NonceSpend } from './nonce.js';
import { unsignedOf } from './serialize.js';
import { ethereumState, withFee } from './state.js';

const PLAIN_TRANSFER_GAS = 21_000n;
/** A transaction's value and an ERC-20 transfer's amount are both uint256. */
const MAX_UINT256 = 2n ** 256n - 1n;

interface Call {
  to: string;
  value: bigint;
  data: string;
}

function transferCall(ctx: EthContext, intent: WithdrawalIntent): Call {
  if (intent.amount > MAX_UINT256) {
    throw new InvalidArgumentError(`amount is above what an Ethereum transfer can carry (2^256-1 base units of ${intent.asset.symbol})`, { field: 'amount' });
  }
  const recipient = ctx.checksums.of(intent.recipientAddress);
  if (intent.asset.native) return { to: recipient, value: intent.amount, data: '0x' };
  const contract = intent.asset.contract;
  if (!contract || !ctx.checksums.isValid(contract)) {
    throw new InvalidArgumentError(`asset ${intent.asset.symbol} has no valid ERC-20 contract configured`, { field: 'asset' });
  }
  return { to: ctx.checksums.of(contract), value: 0n, data: ERC20.encodeFunctionData('transfer', [recipient, intent.amount]) };
}

/**
 * `eth_estimateGas` plus the configured margin, since state can change between estimate and
 * inclusion. A plain transfer to an account without code costs exactly 21000, so no margin.
 */
async function estimateGas(ctx: EthContext, from: string, call: Call): Promise<bigint> {
  let estimate: bigint;
  try {
    estimate = await ctx.reads.estimateGas({ from, to: call.to, value: `0x${call.value.toString(16)}`, data: call.data });
  } catch (e) {
    // A revert here (paused token, blocked recipient) would revert on chain too.
    if (e instanceof JsonRpcError) throw new PermanentLedgerError(`the node rejects this transfer: ${e.rpcMessage}`);
    throw e;
  }
  if (call.data === '0x' && estimate === PLAIN_TRANSFER_GAS) return estimate;
  return (estimate * BigInt(100 + ctx.options.gasMarginPercent) + 99n) / 100n;
}

const eth = (wei: bigint): string => `${formatAmount(wei, 18)} ETH`;

/** A vault address with what one block shows it holds: ETH, and the asset withdrawn. */
interface Holder {
  vault: VaultAddress;
  account: AccountAtBlock;
  eth: bigint;
  asset: bigint;
}

/** What a transfer from one address costs at most: its gas limit, max fee, and ETH it needs in all. */
interface Cost {
  gasLimit: bigint;
  maxFee: bigint;
  required: bigint;
}

function costOf(gasLimit: bigint, perGas: bigint, intent: WithdrawalIntent): Cost {
  const maxFee = gasLimit * perGas;
  return { gasLimit, maxFee, required: maxFee + (intent.asset.native ? intent.amount : 0n) };
}

/** The estimate from `from`, or the node's refusal of the transfer from it (a revert). */
async function estimateFrom(ctx: EthContext, from: string, call: Call): Promise<bigint | PermanentLedgerError> {
  try {
    return await estimateGas(ctx, from, call);
  } catch (e) {
    if (e instanceof PermanentLedgerError) return e;
    throw e;
  }
}

/**
 * The first holder whose ETH covers the transfer, with the gas estimated from that holder:
 * what a call costs depends on its sender (a vote-delegating token writes a checkpoint for one
 * sender and not for another, a blocklist reverts for one only), so a limit estimated from
 * another address can run the transfer out of gas on chain, fee burnt, and another address's
 * revert says nothing of this one's. Holders whose ETH cannot pay even a plain transfer are
 * passed over without asking the node. Nothing found: the first refusal met, if any.
 */
async function findPayer(
  ctx: EthContext,
  holders: Holder[],
  call: Call,
  perGas: bigint,
  intent: WithdrawalIntent,
): Promise<{ payer: Holder; cost: Cost } | PermanentLedgerError | undefined> {
  const least = costOf(PLAIN_TRANSFER_GAS, perGas, intent).required;
  let refusal: PermanentLedgerError | undefined;
  for (const holder of holders) {
    if (holder.eth < least) continue;
    const gasLimit = await estimateFrom(ctx, holder.vault.address, call);
    if (gasLimit instanceof PermanentLedgerError) {
      refusal ??= gasLimit;
      continue;
    }
    const cost = costOf(gasLimit, perGas, intent);
    if (holder.eth >= cost.required) return { payer: holder, cost };
  }
  return refusal;
}

/** The refusal when no holder can pay: the first holder's shortfall, with the figures of a transfer from it. */
async function shortOfEth(ctx: EthContext, holder: Holder, call: Call, perGas: bigint, intent: WithdrawalIntent): Promise<Error> {
  const gasLimit = await estimateFrom(ctx, holder.vault.address, call);
  if (gasLimit instanceof PermanentLedgerError) return gasLimit;
  const { maxFee, required } = costOf(gasLimit, perGas, intent);
  const need = intent.asset.native ? `${eth(intent.amount)} + fee up to ${eth(maxFee)}` : `fee up to ${eth(maxFee)} for gas`;
  return insufficientFunds(
    `${holder.vault.address} holds ${eth(holder.eth)}; the withdrawal needs ${need} (${gasLimit} gas × ${formatAmount(perGas, 9)} gwei) = ${eth(required)}`,
    {
      address: holder.vault.address,
      asset: ctx.nativeAsset,
      required,
      available: holder.eth,
      fee: { amount: maxFee, asset: ctx.nativeAsset },
      extra: { gasLimit: gasLimit.toString(), maxFeePerGasGwei: formatAmount(perGas, 9) },
    },
  );
}

/**
 * Builds one transaction from one vault address. With several addresses, the first that
 * holds the amount and the gas is used (account ledgers do not combine inputs).
 */
export async function craft(ctx: EthContext, source: VaultSource, intent: WithdrawalIntent, fresh = false): Promise<UnsignedWithdrawal> {
  const choice = parseFee(intent.fee);
  if (!ctx.checksums.isValid(intent.recipientAddress)) {
    throw new InvalidArgumentError(`recipient ${intent.recipientAddress} is not a valid Ethereum address`, { field: 'recipientAddress' });
  }
  if (intent.amount <= 0n) throw new InvalidArgumentError('amount must be greater than zero', { field: 'amount' });
  if (source.addresses.length === 0) throw new InvalidArgumentError(`vault ${source.vaultId} has no address`);
  const call = transferCall(ctx, intent);
  const { amount, asset } = intent;
  const native = asset.native;

  const assets = native ? [ctx.nativeAsset] : [ctx.nativeAsset, asset];
  // Read once per block (shared with concurrent withdrawals); a refusal is decided on a fresh read.
  const [snapshot, fee] = await Promise.all([
    ctx.reads.accounts(
      source.addresses.map((a) => a.address),
      assets,
      fresh,
    ),
    quoteFee(ctx, choice),
  ]);
  const funds: Holder[] = source.addresses.map((a, i) => {
    const account = snapshot.accounts[i] as AccountAtBlock;
    return { vault: a, account, eth: account.balances[0] ?? 0n, asset: account.balances[assets.length - 1] ?? 0n };
  });
  const holders = funds.filter((f) => f.asset >= amount);
  const first = funds[0] as Holder;
  if (holders.length === 0 && !fresh) return craft(ctx, source, intent, true);
  if (holders.length === 0) {
    throw insufficientFunds(
      `${first.vault.address} holds ${formatAmount(first.asset, asset.decimals)} ${asset.symbol}; the withdrawal needs ${formatAmount(amount, asset.decimals)} ${asset.symbol}`,
      { address: first.vault.address, asset, required: amount, available: first.asset },
    );
  }

  const perGas = maxFeePerGas(fee);
  const found = await findPayer(ctx, holders, call, perGas, intent);
  // A revert would revert on chain too; a fresh read cannot change it.
  if (found instanceof PermanentLedgerError) throw found;
  if (!found && !fresh) return craft(ctx, source, intent, true);
  if (!found) throw await shortOfEth(ctx, holders[0] as Holder, call, perGas, intent);
  const { payer, cost } = found;
  const spend = native ? { [asset.symbol]: amount + cost.maxFee } : { [ctx.nativeAsset.symbol]: cost.maxFee, [asset.symbol]: amount };
  return reserveNonceAndBuild(ctx, payer.vault, intent, call, cost.gasLimit, fee, cost.maxFee, {
    account: payer.account,
    assets,
    spend,
    owner: intent.reference,
  });
}

/** Reserves the vault address's next nonce, then builds with it; the nonce goes back if the build fails. */
async function reserveNonceAndBuild(
  ctx: EthContext,
  vault: VaultAddress,
  intent: WithdrawalIntent,
  call: Call,
  gasLimit: bigint,
  fee: FeeQuote,
  maxFee: bigint,
  funds: NonceSpend,
): Promise<UnsignedWithdrawal> {
  const from = ctx.checksums.of(vault.address);
  const scope = nonceScope(ctx, from);
  // The nonce is reserved with what its transaction may spend (nonce.ts); release gives both back.
  const nonce = {
    label: `nonce of ${scope}`,
    take: () => reserveNonce(ctx, scope, funds),
    release: (n: bigint) => ctx.deps.reservations.releaseSequence(scope, n, intent.reference),
  };
  return reserveAndBuild(ctx.deps.logger, [nonce], ([n]) => {
    const state = withFee(
      {
        chainId: String(ctx.chainId),
        nonce: n.toString(),
        from,
        to: call.to,
        value: call.value.toString(),
        data: call.data.toLowerCase(),
        gasLimit: gasLimit.toString(),
        recipient: ctx.checksums.of(intent.recipientAddress),
        asset: intent.asset.symbol,
        amount: intent.amount.toString(),
      },
      fee,
    );
    return unsignedOf(state, vault, maxFee);
  });
}

/**
 * Returns the nonce to the free list so the next withdrawal fills the gap. Only the owner's
 * reservation is freed; after broadcast the nonce is settled and this is a no-op.
 */
export async function release(ctx: EthContext, unsigned: UnsignedWithdrawal, reference: string): Promise<void> {
  const state = ethereumState.decode(unsigned.state);
  await ctx.deps.reservations.releaseSequence(nonceScope(ctx, state.from), BigInt(state.nonce), reference);
}
