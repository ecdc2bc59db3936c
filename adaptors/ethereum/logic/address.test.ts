import { computeAddress, getAddress, isAddress, Transaction, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { builtInEthereumCodec } from '../address-codec.js';
import { storedPublicKey } from '../../../src/ledger/public-key.js';
import { Checksums, senderOf } from './address.js';

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

/** A spelling with the case of each letter flipped where `flip` says so: mixed case, mostly a wrong checksum. */
function recased(address: string, flip: (i: number) => boolean): string {
  return `0x${[...address.slice(2)].map((c, i) => (flip(i) ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c)).join('')}`;
}

describe('Checksums: the spellings worked out lately give the answers ethers gives', () => {
  const wallets = Array.from({ length: 40 }, () => Wallet.createRandom());

  it('validity and spelling of each address in every case, asked twice (worked out, then remembered)', () => {
    const checksums = new Checksums(8);
    for (const w of wallets) {
      const right = w.address;
      const spellings = [right, right.toLowerCase(), `0x${right.slice(2).toUpperCase()}`, recased(right, (i) => i % 3 === 0), recased(right, (i) => i === 39)];
      for (const round of [1, 2]) {
        for (const spelling of spellings) {
          expect(checksums.isValid(spelling), `${spelling}, round ${round}`).toBe(isAddress(spelling));
          if (isAddress(spelling)) expect(checksums.of(spelling)).toBe(getAddress(spelling));
        }
      }
    }
  });

  it('a wrong checksum stays refused once the right spelling is remembered', () => {
    const checksums = new Checksums();
    const right = wallets.find((w) => /[a-f].*[A-F]|[A-F].*[a-f]/.test(w.address.slice(2)))!.address;
    const firstLetter = [...right.slice(2)].findIndex((c) => /[a-fA-F]/.test(c));
    const wrong = recased(right, (i) => i === firstLetter);
    expect(isAddress(wrong)).toBe(false);
    expect(checksums.of(right.toLowerCase())).toBe(right);
    expect(checksums.isValid(right)).toBe(true);
    expect(checksums.isValid(wrong)).toBe(false);
    expect(checksums.isValid(wrong)).toBe(false);
  });

  it('refuses what is not 20 bytes of hex, before any checksum', () => {
    const checksums = new Checksums();
    for (const bad of [
      '',
      '0x',
      wallets[0]!.address.slice(0, 41),
      `${wallets[0]!.address}0`,
      wallets[0]!.address.slice(2),
      `0X${wallets[0]!.address.slice(2)}`,
      `0x${'g'.repeat(40)}`,
    ]) {
      expect(checksums.isValid(bad), bad).toBe(false);
    }
    expect(checksums.isValid(42 as unknown as string)).toBe(false);
  });

  it('the address of each key, asked again, and a refused format refused every time', () => {
    const checksums = new Checksums(4);
    for (const w of wallets) {
      const key = storedPublicKey(w.signingKey.compressedPublicKey.slice(2), 'secp256k1');
      expect(checksums.fromPublicKey(key)).toBe(computeAddress(w.signingKey.publicKey));
      expect(checksums.fromPublicKey(key, 'eip55')).toBe(w.address);
      expect(checksums.fromPublicKey(key)).toBe(w.address);
      for (let i = 0; i < 2; i++) expect(() => checksums.fromPublicKey(key, 'base58')).toThrow(/Unknown address format 'base58'/);
    }
  });
});
