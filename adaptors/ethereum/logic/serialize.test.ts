import fc from 'fast-check';
import { computeAddress, concat, getAddress, getBytes, hexlify, keccak256, Signature, SigningKey, toBeHex, Transaction } from 'ethers';
import { describe, expect, it } from 'vitest';
import { SECP256K1_N } from '../../../src/ledger/signatures.js';
import { StoredStateError } from '../../../src/ledger/state-codec.js';
import { signedSerialized, unsignedSerialized } from './serialize.js';
import type { EthereumState } from './state.js';

const uint256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
/** Small values too, where RLP's single-byte and empty forms live. */
const quantity = fc.oneof(fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), uint256);
const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
/** r and s with leading zero bytes as often as not (RLP drops them); s low, as EIP-2 wants and ethers checks. */
const scalar = fc.tuple(fc.nat({ max: 3 }), bytes(32, 32)).map(([zeros, b]) => {
  b.fill(0, 0, zeros);
  b[0] = (b[0] as number) & 0x7f;
  return b;
});

const stateArb = fc.record({
  type: fc.constantFrom(0 as const, 2 as const),
  chainId: fc.oneof(fc.constantFrom(1n, 31337n, 11155111n), fc.bigInt({ min: 1n, max: (1n << 64n) - 1n })),
  nonce: fc.oneof(fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) })),
  to: bytes(20, 20),
  value: quantity,
  data: fc.oneof(fc.constant(new Uint8Array(0)), bytes(1, 1), bytes(0, 200)),
  gasLimit: quantity,
  fee1: quantity,
  fee2: quantity,
});

type StateInput = typeof stateArb extends fc.Arbitrary<infer T> ? T : never;

function stateOf(a: StateInput): EthereumState {
  const to = getAddress(hexlify(a.to));
  const fees =
    a.type === 2
      ? { maxFeePerGas: (a.fee1 > a.fee2 ? a.fee1 : a.fee2).toString(), maxPriorityFeePerGas: (a.fee1 > a.fee2 ? a.fee2 : a.fee1).toString() }
      : { gasPrice: a.fee1.toString() };
  return {
    type: a.type,
    chainId: a.chainId.toString(),
    nonce: a.nonce.toString(),
    from: to,
    to,
    value: a.value.toString(),
    data: hexlify(a.data),
    gasLimit: a.gasLimit.toString(),
    ...fees,
    recipient: to,
    asset: 'ETH',
    amount: a.value.toString(),
  };
}

/** The same transaction as an ethers Transaction, the reference serializer. */
function reference(s: EthereumState): Transaction {
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

describe('Ethereum transaction bytes from state', () => {
  it('are the bytes ethers serializes, unsigned and signed, for legacy (EIP-155) and EIP-1559 transactions', () => {
    fc.assert(
      fc.property(stateArb, scalar, scalar, fc.constantFrom(0 as const, 1 as const), (a, r, s, yParity) => {
        const state = stateOf(a);
        const tx = reference(state);
        expect(unsignedSerialized(state)).toBe(tx.unsignedSerialized);
        tx.signature = Signature.from({ r: hexlify(r), s: hexlify(s), yParity });
        const rs = new Uint8Array([...r, ...s]);
        const signed = signedSerialized(state, { rs, yParity });
        expect(signed).toBe(tx.serialized);
      }),
      { numRuns: 400 },
    );
  });

  it("signed with a real key, read back by ethers as that key's transaction, under its hash", () => {
    fc.assert(
      fc.property(stateArb, fc.bigInt({ min: 1n, max: SECP256K1_N - 1n }), (a, secret) => {
        const state = stateOf(a);
        const key = new SigningKey(toBeHex(secret, 32));
        const unsigned = unsignedSerialized(state);
        const sig = key.sign(keccak256(unsigned));
        const signed = signedSerialized(state, { rs: getBytes(concat([sig.r, sig.s])), yParity: sig.yParity });
        const parsed = Transaction.from(signed);
        expect(parsed.from).toBe(computeAddress(key.publicKey));
        expect(parsed.hash).toBe(keccak256(signed));
        expect(parsed.unsignedSerialized).toBe(unsigned);
      }),
      { numRuns: 50 },
    );
  });

  it('refuse a state whose fields no transaction carries, naming the field', () => {
    const base = stateOf({
      type: 2,
      chainId: 1n,
      nonce: 0n,
      to: new Uint8Array(20).fill(7),
      value: 1n,
      data: new Uint8Array(0),
      gasLimit: 21000n,
      fee1: 2n,
      fee2: 1n,
    });
    const cases: [Partial<EthereumState>, RegExp][] = [
      [{ value: (1n << 256n).toString() }, /value .* is out of range/],
      [{ nonce: (BigInt(Number.MAX_SAFE_INTEGER) + 1n).toString() }, /nonce .* is out of range/],
      [{ to: '0x1234' }, /to 0x1234 is not an address/],
      [{ data: '0xabc' }, /data 0xabc is not hex bytes/],
      [{ maxPriorityFeePerGas: '3' }, /maxPriorityFeePerGas 3 is above maxFeePerGas 2/],
    ];
    for (const [change, words] of cases) {
      const bad = { ...base, ...change };
      expect(() => unsignedSerialized(bad)).toThrow(StoredStateError);
      expect(() => unsignedSerialized(bad)).toThrow(words);
    }
  });
});
