import { z } from 'zod';
import { defineStateCodec, type StateOf } from '../../../src/ledger/state-codec.js';
import type { FeeQuote } from './fees.js';

const uint = z.string().regex(/^\d+$/);
const hex = z.string().regex(/^0x[0-9a-f]*$/);

/**
 * What `craft` stores in `UnsignedWithdrawal.state`: every transaction field as a decimal
 * or hex string, so `combine`, `release`, `broadcast` and `txStatus` rebuild the exact
 * transaction from Redis without calling the node.
 */
export const ethereumState = defineStateCodec(
  'Ethereum',
  z.object({
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
  }),
);

export type EthereumState = StateOf<typeof ethereumState>;

/** The state with the fee fields of `fee` (and only those). */
export function withFee(base: Omit<EthereumState, 'type' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'gasPrice'>, fee: FeeQuote): EthereumState {
  return fee.type === 2
    ? { ...base, type: 2, maxFeePerGas: fee.maxFeePerGas.toString(), maxPriorityFeePerGas: fee.maxPriorityFeePerGas.toString() }
    : { ...base, type: 0, gasPrice: fee.gasPrice.toString() };
}

/** 0x-less lower hex, the contract's convention for preimages and digests. */
export function bare(hexText: string): string {
  return hexText.replace(/^0x/, '').toLowerCase();
}
