import { Transaction, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { builtInEthereumCodec } from '../address-codec.js';
import { senderOf } from './address.js';

/** The sender recovered with tiny-secp256k1 is the one ethers recovers, for every transaction type. */
describe('senderOf', () => {
  const wallet = Wallet.createRandom();
  const base = { chainId: 31337n, nonce: 7, to: '0x00000000000000000000000000000000000000B0', value: 1n, gasLimit: 21_000n };

  it.each([
    ['EIP-1559', { ...base, type: 2, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }],
    ['legacy, EIP-155', { ...base, type: 0, gasPrice: 2_000_000_000n }],
  ])('%s: the signing address, as ethers recovers it', async (_name, fields) => {
    for (let i = 0; i < 8; i++) {
      const tx = Transaction.from(await wallet.signTransaction({ ...fields, nonce: i }));
      expect(senderOf(tx)).toBe(wallet.address);
      expect(senderOf(tx)).toBe(tx.from);
    }
  });

  it('another address for altered content, none for an unsigned transaction', async () => {
    const signed = Transaction.from(await wallet.signTransaction({ ...base, type: 2, maxFeePerGas: 3n, maxPriorityFeePerGas: 1n }));
    const altered = Transaction.from({ ...signed.toJSON(), value: 2n, signature: signed.signature, hash: undefined });
    expect(senderOf(altered)).not.toBe(wallet.address);
    expect(senderOf(Transaction.from({ ...base, type: 2 }))).toBeUndefined();
  });
});

describe('canonicalAddress: one spelling per account', () => {
  const codec = builtInEthereumCodec('eth')!;
  // EIP-55's own test vector.
  const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

  it('gives the EIP-55 form for the address in lower, upper or checksummed case', () => {
    for (const spelling of [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`]) {
      expect(codec.isValidAddress(spelling)).toBe(true);
      expect(codec.canonicalAddress!(spelling)).toBe(checksummed);
    }
  });

  it('keeps different accounts apart', () => {
    expect(codec.canonicalAddress!('0x00000000000000000000000000000000000000b0')).not.toBe(
      codec.canonicalAddress!('0x00000000000000000000000000000000000000b1'),
    );
  });
});
