import { Transaction } from 'ethers';
import { z } from 'zod';
import { PermanentLedgerError } from '../../../src/errors.js';
import type { UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import type { FeeQuote } from './fees.js';

const uint = z.string().regex(/^\d+$/);
const hex = z.string().regex(/^0x[0-9a-f]*$/);

/**
 * What `craft` stores in `UnsignedWithdrawal.state`: every transaction field as a decimal
 * or hex string, so `combine`, `release`, `broadcast` and `txStatus` rebuild the exact
 * transaction from Redis without calling the node.
 */
const stateSchema = z.object({
  type: z.union([z.literal(0), z.literal(2)]),
  chainId: uint,
  nonce: uint,
  /** EIP-55 address of the vault that signs. */
  from: z.string(),
  to: z.string(),
  value: uint,
  data: hex,
  gasLimit: uint,
  maxFeePerGas: uint.optional(),
  maxPriorityFeePerGas: uint.optional(),
  gasPrice: uint.optional(),
  /** The withdrawal as asked, for display and checks: ERC-20 `to` is the contract. */
  recipient: z.string(),
  asset: z.string(),
  amount: uint,
});

export type EthTxState = z.infer<typeof stateSchema>;

export function buildState(
  base: Omit<EthTxState, 'type' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'gasPrice'>,
  fee: FeeQuote,
): EthTxState {
  return fee.type === 2
    ? {
        ...base,
        type: 2,
        maxFeePerGas: fee.maxFeePerGas.toString(),
        maxPriorityFeePerGas: fee.maxPriorityFeePerGas.toString(),
      }
    : { ...base, type: 0, gasPrice: fee.gasPrice.toString() };
}

export function readState(unsigned: UnsignedWithdrawal): EthTxState {
  const parsed = stateSchema.safeParse(unsigned.state);
  if (!parsed.success) {
    throw new PermanentLedgerError(`stored Ethereum withdrawal state is malformed: ${parsed.error.message}`, 'ERR_BAD_STATE');
  }
  return parsed.data;
}

/** The unsigned transaction the state describes; type 0 carries the chain id for EIP-155. */
export function toTransaction(s: EthTxState): Transaction {
  return Transaction.from({
    type: s.type,
    chainId: BigInt(s.chainId),
    nonce: Number(s.nonce),
    to: s.to,
    value: BigInt(s.value),
    data: s.data,
    gasLimit: BigInt(s.gasLimit),
    ...(s.type === 2
      ? { maxFeePerGas: BigInt(s.maxFeePerGas ?? '0'), maxPriorityFeePerGas: BigInt(s.maxPriorityFeePerGas ?? '0') }
      : { gasPrice: BigInt(s.gasPrice ?? '0') }),
  });
}

/** Reservation scope of one account's nonces: per ledger, since chains share addresses. */
export function nonceScope(ctx: EthContext, from: string): string {
  return `${ctx.ledgerId}:${from.toLowerCase()}`;
}

/** Raw `pending` count: ethers' provider caches nonces for 250 ms, which hands out duplicates. */
export async function pendingNonce(ctx: EthContext, address: string): Promise<bigint> {
  return BigInt(await ctx.rpc.call<string>('eth_getTransactionCount', [address, 'pending']));
}

/** 0x-less lower hex, the contract's convention for preimages and digests. */
export function bare(hexText: string): string {
  return hexText.replace(/^0x/, '').toLowerCase();
}
