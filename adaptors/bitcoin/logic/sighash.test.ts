import { createHash } from 'node:crypto';
import { crypto as bcrypto, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../../src/platform/errors.js';
import { inputPreimages } from './preimage.js';
import { bip143Preimage, legacyPreimage, legacyPreimages, p2pkhScript, sha256d, SIGHASH_ALL } from './sighash.js';

// Vectors from BIP143, section "Example" (github.com/bitcoin/bips/blob/master/bip-0143.mediawiki).
describe('BIP143 sighash preimages', () => {
  it('native P2WPKH example', () => {
    const tx = Transaction.fromHex(
      '0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f0000000000eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000',
    );
    const scriptCode = p2pkhScript(Buffer.from('1d0f172a0ecb48aee1be1f2687d2963ae33f71a1', 'hex'));
    const preimage = bip143Preimage(tx, 1, scriptCode, 600_000_000n);
    expect(preimage.toString('hex')).toBe(
      '0100000096b827c8483d4e9b96712b6713a7b68d6e8003a781feba36c31143470b4efd3752b0a642eea2fb7ae638c36f6252b6750293dbe574a806984b8e4d8548339a3bef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a010000001976a9141d0f172a0ecb48aee1be1f2687d2963ae33f71a188ac0046c32300000000ffffffff863ef3e1a92afbfdb97f31ad0fc7683ee943e9abcf2501590ff8f6551f47e5e51100000001000000',
    );
    expect(sha256d(preimage).toString('hex')).toBe('c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670');
  });

  it('P2SH-P2WPKH example', () => {
    const tx = Transaction.fromHex(
      '0100000001db6b1b20aa0fd7b23880be2ecbd4a98130974cf4748fb66092ac4d3ceb1a54770100000000feffffff02b8b4eb0b000000001976a914a457b684d7f0d539a46a45bbc043f35b59d0d96388ac0008af2f000000001976a914fd270b1ee6abcaea97fea7ad0402e8bd8ad6d77c88ac92040000',
    );
    const scriptCode = p2pkhScript(Buffer.from('79091972186c449eb1ded22b78e40d009bdf0089', 'hex'));
    const preimage = bip143Preimage(tx, 0, scriptCode, 1_000_000_000n);
    expect(preimage.toString('hex')).toBe(
      '01000000b0287b4a252ac05af83d2dcef00ba313af78a3e9c329afa216eb3aa2a7b4613a18606b350cd8bf565266bc352f0caddcf01e8fa789dd8a15386327cf8cabe198db6b1b20aa0fd7b23880be2ecbd4a98130974cf4748fb66092ac4d3ceb1a5477010000001976a91479091972186c449eb1ded22b78e40d009bdf008988ac00ca9a3b00000000feffffffde984f44532e2173ca0d64314fcefe6d30da6f8cf27bafa706da61df8a226c839204000001000000',
    );
    expect(sha256d(preimage).toString('hex')).toBe('64f3b0f4dd2bb3aa1ce8566d220cc74dda9df97d8490cc81d89d735c92e59fb6');
  });

  it('legacy preimage hashes to what bitcoinjs computes', () => {
    const tx = Transaction.fromHex(
      '0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f0000000000eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000',
    );
    const prevout = p2pkhScript(Buffer.alloc(20, 7));
    for (const index of [0, 1]) {
      const digest = sha256d(legacyPreimage(tx, index, prevout));
      expect(digest.toString('hex')).toBe(Buffer.from(tx.hashForSignature(index, prevout, SIGHASH_ALL)).toString('hex'));
    }
  });
});

describe('preimages of every input of one transaction', () => {
  it('match bitcoinjs digests for 300 inputs of mixed types (BIP143 parts shared, legacy without copies)', () => {
    const tx = new Transaction();
    tx.version = 2;
    const formats = ['p2wpkh', 'p2sh-p2wpkh', 'p2pkh'] as const;
    const inputs = Array.from({ length: 300 }, (_, i) => {
      const hash = createHash('sha256').update(`prev ${i}`).digest();
      tx.addInput(hash, i % 3, 0xfffffffd);
      const key = ecc.pointFromScalar(Buffer.alloc(32, (i % 200) + 1), true) as Uint8Array;
      return {
        txid: '',
        vout: i % 3,
        value: String(10_000 + i),
        address: '',
        format: formats[i % 3] as (typeof formats)[number],
        publicKey: Buffer.from(key).toString('hex'),
        keyId: '',
      };
    });
    tx.addOutput(p2pkhScript(Buffer.alloc(20, 1)), 5_000n);
    tx.addOutput(Buffer.concat([Buffer.from([0, 20]), Buffer.alloc(20, 2)]), 7_000n);
    const preimages = inputPreimages(tx, inputs);
    inputs.forEach((input, i) => {
      const script = p2pkhScript(bcrypto.hash160(Buffer.from(input.publicKey, 'hex')));
      const expected =
        input.format === 'p2pkh' ? tx.hashForSignature(i, script, SIGHASH_ALL) : tx.hashForWitnessV0(i, script, BigInt(input.value), SIGHASH_ALL);
      expect(sha256d(preimages[i] as Buffer).toString('hex'), `input ${i} (${input.format})`).toBe(Buffer.from(expected).toString('hex'));
    });
  });
});

describe('scripts and indexes at the edges', () => {
  const tx = new Transaction();
  tx.version = 2;
  tx.addInput(createHash('sha256').update('prev').digest(), 0, 0xfffffffd);
  // Past 252 bytes a script's length takes a three-byte varint; 300 bytes of OP_RETURN data.
  tx.addOutput(Buffer.concat([Buffer.from([0x6a, 0x4d, 0x2c, 0x01]), Buffer.alloc(300, 9)]), 0n);
  const script = p2pkhScript(Buffer.alloc(20, 3));

  it('an output script longer than 252 bytes hashes as bitcoinjs hashes it, legacy and BIP143', () => {
    const legacy = sha256d(legacyPreimages(tx)(0, script));
    expect(legacy.toString('hex')).toBe(Buffer.from(tx.hashForSignature(0, script, SIGHASH_ALL)).toString('hex'));
    const segwit = sha256d(bip143Preimage(tx, 0, script, 1_000n));
    expect(segwit.toString('hex')).toBe(Buffer.from(tx.hashForWitnessV0(0, script, 1_000n, SIGHASH_ALL)).toString('hex'));
  });

  it('an input index past the inputs is a final InternalError, not a retryable plain Error', () => {
    for (const ask of [() => bip143Preimage(tx, 1, script, 1_000n), () => legacyPreimages(tx)(1, script)]) {
      let caught: unknown;
      try {
        ask();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(InternalError);
      expect((caught as InternalError).retryable).toBe(false);
      expect((caught as InternalError).details).toBe('sighash asked for input 1 of a transaction with 1 inputs');
    }
  });
});
