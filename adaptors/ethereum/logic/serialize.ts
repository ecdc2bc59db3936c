import { encodeRlp, keccak256 } from 'ethers';
import type { UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import { singlePayloadWithdrawal, type SinglePayload } from '../../../src/ledger/single-payload.js';
import { StoredStateError } from '../../../src/ledger/state-codec.js';
import { bare, ethereumState, type EthereumState } from './state.js';

/**
 * The bytes of the transaction a state describes, unsigned (what the vault signs) and signed
 * (what the node takes), as ethers' `Transaction` serializes them: EIP-1559 (type 2) with an
 * empty access list, or legacy with EIP-155's chain id. Encoded with ethers' RLP over byte
 * fields: a `Transaction` object validates and serializes again on every getter, which made
 * assembling a withdrawal cost 66 µs against 40 (keccak of both forms included), and the
 * assembly is on the worker's path for every withdrawal. `serialize.test.ts` holds the two
 * byte for byte against ethers over random transactions and signatures.
 */

/** A secp256k1 signature over the unsigned bytes: r ‖ s (64 bytes, as combine checked) and the recovery bit. */
export interface TxSignature {
  rs: Uint8Array;
  yParity: 0 | 1;
}

const EMPTY = new Uint8Array(0);
const UINT256_LIMIT = 1n << 256n;

/** A number as RLP carries it: big-endian with no leading zero bytes, zero as no bytes. */
function quantity(value: bigint): Uint8Array {
  if (value === 0n) return EMPTY;
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

type NumberField = 'chainId' | 'nonce' | 'value' | 'gasLimit' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'gasPrice';

/** A decimal field of the state as an RLP number, refused when the transaction cannot carry it. */
function uint(state: EthereumState, field: NumberField, limit = UINT256_LIMIT): Uint8Array {
  const value = BigInt(state[field] ?? '0');
  if (value >= limit) throw new StoredStateError('Ethereum', `${field} ${value} is out of range`);
  return quantity(value);
}

/** `to` (an address, or empty) or `data` as bytes. */
function hexBytes(field: 'to' | 'data', text: string): Uint8Array {
  const digits = text.slice(2);
  if (!text.startsWith('0x') || digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) {
    throw new StoredStateError('Ethereum', `${field} ${text} is not hex bytes`);
  }
  if (field === 'to' && digits.length !== 0 && digits.length !== 40) throw new StoredStateError('Ethereum', `to ${text} is not an address`);
  return Buffer.from(digits, 'hex');
}

/** Leading zero bytes dropped: r and s go into RLP as numbers. */
function trimmed(bytes: Uint8Array): Uint8Array {
  let at = 0;
  while (at < bytes.length && bytes[at] === 0) at++;
  return bytes.subarray(at);
}

/** The fields every form shares, in the order of the state's type. */
function fields(state: EthereumState): Uint8Array[] {
  const nonce = uint(state, 'nonce', BigInt(Number.MAX_SAFE_INTEGER) + 1n);
  const common = [uint(state, 'gasLimit'), hexBytes('to', state.to || '0x'), uint(state, 'value'), hexBytes('data', state.data)];
  if (state.type !== 2) return [nonce, uint(state, 'gasPrice'), ...common];
  // No node takes a tip above the fee cap (ethers refuses to serialize one as well).
  if (BigInt(state.maxPriorityFeePerGas ?? '0') > BigInt(state.maxFeePerGas ?? '0')) {
    throw new StoredStateError('Ethereum', `maxPriorityFeePerGas ${state.maxPriorityFeePerGas} is above maxFeePerGas ${state.maxFeePerGas}`);
  }
  return [uint(state, 'chainId'), nonce, uint(state, 'maxPriorityFeePerGas'), uint(state, 'maxFeePerGas'), ...common];
}

/** `0x`-prefixed hex of a typed transaction's envelope: the type byte, then the RLP list. */
function envelope(state: EthereumState, items: (Uint8Array | Uint8Array[])[]): string {
  const rlp = encodeRlp(items);
  return state.type === 2 ? `0x02${rlp.slice(2)}` : rlp;
}

/** The unsigned bytes (`0x` hex), whose keccak-256 the vault signs. */
export function unsignedSerialized(state: EthereumState): string {
  const f = fields(state);
  if (state.type === 2) return envelope(state, [...f, []]);
  // EIP-155: the chain id and two empty fields are signed with a legacy transaction.
  return envelope(state, BigInt(state.chainId) === 0n ? f : [...f, uint(state, 'chainId'), EMPTY, EMPTY]);
}

/** The signed bytes (`0x` hex), as `eth_sendRawTransaction` takes them. */
export function signedSerialized(state: EthereumState, sig: TxSignature): string {
  const f = fields(state);
  const rs = [trimmed(sig.rs.subarray(0, 32)), trimmed(sig.rs.subarray(32, 64))];
  if (state.type === 2) return envelope(state, [...f, [], quantity(BigInt(sig.yParity)), ...rs]);
  // EIP-155: v carries the chain id (27 or 28 without one).
  const chainId = BigInt(state.chainId);
  const v = chainId === 0n ? 27n + BigInt(sig.yParity) : chainId * 2n + 35n + BigInt(sig.yParity);
  return envelope(state, [...f, quantity(v), ...rs]);
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
