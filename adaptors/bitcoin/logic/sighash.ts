import { createHash } from 'node:crypto';
import type { Transaction } from 'bitcoinjs-lib';

/**
 * Signature-hash preimages for SIGHASH_ALL, built by hand because the custody service shows
 * approvers the preimage (`rawTransactions`) and hashes it itself: bitcoinjs only returns
 * the digest. Tests check these against the BIP143 vectors and against bitcoinjs' digests.
 */

export const SIGHASH_ALL = 0x01;

export function sha256d(data: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function u64le(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}

function varSlice(data: Uint8Array): Buffer {
  if (data.length >= 0xfd) throw new Error('script too long for this sighash builder');
  return Buffer.concat([Buffer.from([data.length]), data]);
}

/** P2PKH script of a key hash: the scriptCode of P2WPKH spends (BIP143) and the prevout of P2PKH. */
export function p2pkhScript(pubkeyHash: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), pubkeyHash, Buffer.from([0x88, 0xac])]);
}

/** BIP143 preimage of input `index` (P2WPKH and P2SH-P2WPKH), SIGHASH_ALL. */
export function bip143Preimage(tx: Transaction, index: number, scriptCode: Uint8Array, value: bigint): Buffer {
  const input = tx.ins[index];
  if (!input) throw new Error(`no input ${index}`);
  const prevouts = Buffer.concat(tx.ins.map((i) => Buffer.concat([i.hash, u32le(i.index)])));
  const sequences = Buffer.concat(tx.ins.map((i) => u32le(i.sequence)));
  const outputs = Buffer.concat(tx.outs.map((o) => Buffer.concat([u64le(o.value), varSlice(o.script)])));
  return Buffer.concat([
    u32le(tx.version),
    sha256d(prevouts),
    sha256d(sequences),
    input.hash,
    u32le(input.index),
    varSlice(scriptCode),
    u64le(value),
    u32le(input.sequence),
    sha256d(outputs),
    u32le(tx.locktime),
    u32le(SIGHASH_ALL),
  ]);
}

/** Legacy (pre-SegWit) preimage of input `index`, SIGHASH_ALL: the tx with only this input's script, plus the type. */
export function legacyPreimage(tx: Transaction, index: number, prevoutScript: Uint8Array): Buffer {
  const copy = tx.clone();
  copy.ins.forEach((input, i) => {
    input.script = i === index ? Uint8Array.from(prevoutScript) : new Uint8Array(0);
    input.witness = [];
  });
  return Buffer.concat([copy.toBuffer(), u32le(SIGHASH_ALL)]);
}
