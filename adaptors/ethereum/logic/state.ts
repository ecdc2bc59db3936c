import { keccak256 } from 'ethers';
import { z } from 'zod';
import type { UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import { singlePayloadWithdrawal, type SinglePayload } from '../../../src/ledger/single-payload.js';
import { defineStateCodec, type StateOf } from '../../../src/ledger/state-codec.js';
import type { FeeQuote } from './fees.js';
import { unsignedSerialized } from './serialize.js';

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
export function withFee(
  base: Omit<EthereumState, 'type' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'gasPrice'>,
  fee: FeeQuote,
): EthereumState {
  return fee.type === 2
    ? { ...base, type: 2, maxFeePerGas: fee.maxFeePerGas.toString(), maxPriorityFeePerGas: fee.maxPriorityFeePerGas.toString() }
    : { ...base, type: 0, gasPrice: fee.gasPrice.toString() };
}

/** 0x-less lower hex, the contract's convention for preimages and digests. */
export function bare(hexText: string): string {
  return hexText.replace(/^0x/, '').toLowerCase();
}

/** The unsigned withdrawal of one transaction state: its bytes, the keccak digest the vault signs, `fee` at most. */
export function unsignedOf(state: EthereumState, signer: SinglePayload['signer'], fee: bigint): UnsignedWithdrawal {
  const preimage = unsignedSerialized(state);
  return singlePayloadWithdrawal({
    serialized: bare(preimage),
    signer,
    hashAlgorithm: 'SHA3_256',
    digest: bare(keccak256(preimage)),
    preimage: bare(preimage),
    fee,
    state: ethereumState.encode(state),
  });
}
