/** Data the bench prepares: pre-created operations with real signatures, and key batches. */
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as ecc from 'tiny-secp256k1';
import type { HashAlgorithm } from '../src/ledger/adaptor.js';
import { toCustodyKeyId, type PublicKey } from '../src/ledger/public-key.js';
import { Ed25519Keys, verifySignature } from '../src/ledger/signatures.js';
import type { Operation } from '../src/withdrawals/model/operation.js';
import type { OperationStore } from '../src/withdrawals/store/operation-store.js';

/** Fixed signing keys, known to the bench only (stand-ins for custody vault keys). */
const PRIVATE = createHash('sha256').update('byow bench vault key').digest();
// PKCS#8 wrapping of a raw 32-byte ed25519 seed, so node:crypto can sign with it.
const ED_PRIVATE = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), createHash('sha256').update('byow bench ed25519 key').digest()]),
  format: 'der',
  type: 'pkcs8',
});

export const benchKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(ecc.pointFromScalar(PRIVATE, true) as Uint8Array) };
const benchEdKey: PublicKey = { scheme: 'ed25519', bytes: Uint8Array.from(createPublicKey(ED_PRIVATE).export({ format: 'der', type: 'spki' }).subarray(-32)) };

/**
 * What one family's signing callback carries: the key's scheme, how many entries (one per
 * payload: a Bitcoin withdrawal signs each input), and how many bytes each signed entry has
 * (a 32-byte digest, or Solana's whole message, which ed25519 signs as it is).
 */
export interface CallbackShape {
  ledgerId: string;
  scheme: 'secp256k1' | 'ed25519';
  payloads: number;
  dataBytes: number;
  hashAlgorithm: HashAlgorithm;
}

export const ETHEREUM_CALLBACK: CallbackShape = { ledgerId: 'ethdev', scheme: 'secp256k1', payloads: 1, dataBytes: 32, hashAlgorithm: 'SHA3_256' };

export function fakeOperation(
  id: string,
  ledgerId: string,
  digest: string | string[],
  status: Operation['status'] = 'EXECUTING',
  key: PublicKey = benchKey,
): Operation {
  const now = new Date().toISOString();
  const digests = [digest].flat();
  return {
    id,
    operationID: id,
    vaultId: 'bench-vault',
    ledgerId,
    request: { recipientAddress: '0x00000000000000000000000000000000000000B0', asset: 'ETH', amount: '0.001', description: 'bench', fee: 'MEDIUM' },
    recipientAddress: '0x00000000000000000000000000000000000000B0',
    unsigned: {
      txs: [{ serialized: '00' }],
      payloads: digests.map((d, inputIndex) => ({
        digest: d,
        keyId: toCustodyKeyId(key),
        publicKey: Buffer.from(key.bytes).toString('hex'),
        hashAlgorithm: 'SHA3_256',
        txIndex: 0,
        inputIndex,
      })),
      fee: '0',
      state: {},
    },
    status,
    history: [{ status, at: now }],
    txids: [],
    confirmations: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** Signs `data` with the bench key of `scheme`: the signature as upper-case hex and its v, as the custody service sends them. */
function signEntry(scheme: CallbackShape['scheme'], data: Buffer): { signature: string; v: number } {
  if (scheme === 'ed25519') return { signature: sign(null, data, ED_PRIVATE).toString('hex').toUpperCase(), v: 0 };
  const { signature, recoveryId } = ecc.signRecoverable(data, PRIVATE);
  return { signature: Buffer.from(signature).toString('hex').toUpperCase(), v: recoveryId };
}

/**
 * Stores `count` operations of the shape's payloads each (random data signed by the bench key
 * of its scheme) and writes the matching callback bodies, one JSON text per line, as the
 * custody service would send them: the key as DER SPKI hex per entry, the signatures r||s (or
 * ed25519's R||S) upper-case hex, v per entry.
 */
export async function prepareCallbacks(store: OperationStore, shape: CallbackShape, count: number, file: string, tag: string): Promise<void> {
  const key = shape.scheme === 'ed25519' ? benchEdKey : benchKey;
  const keyId = toCustodyKeyId(key);
  const lines: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch: Promise<void>[] = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const data = Array.from({ length: shape.payloads }, () => randomBytes(shape.dataBytes));
      const signed = data.map((d) => signEntry(shape.scheme, d));
      const hex = data.map((d) => d.toString('hex'));
      const op = fakeOperation(`${tag}-${i}`, shape.ledgerId, hex, 'EXECUTING', key);
      for (const p of op.unsigned.payloads) p.hashAlgorithm = shape.hashAlgorithm;
      batch.push(store.create(op));
      lines.push(
        JSON.stringify({
          publicKeys: hex.map(() => keyId),
          providerData: JSON.stringify({ reference: `${tag}-${i}` }),
          dataToSign: hex,
          signatures: signed.map((s) => s.signature),
          v: signed.map((s) => s.v),
        }),
      );
    }
    await Promise.all(batch);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/**
 * The CPU the receiver's signature checks alone take per callback (ms): every entry of the first
 * `max` callbacks of `file` (written by prepareCallbacks) checked here as the receiver checks it
 * (`verifySignature` against the stored key, ed25519 key objects kept), on this process's thread.
 */
export function signatureChecksCpuMs(file: string, scheme: CallbackShape['scheme'], max = 2_000): number {
  const key = scheme === 'ed25519' ? benchEdKey : benchKey;
  const keys = new Ed25519Keys();
  const bodies = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, max)
    .map((line) => JSON.parse(line) as { dataToSign: string[]; signatures: string[]; v: number[] });
  const before = process.cpuUsage();
  for (const b of bodies) b.dataToSign.forEach((digest, j) => verifySignature(digest, b.signatures[j] as string, b.v[j], key, keys));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1_000 / bodies.length;
}

/** `count` random secp256k1 public points (65-byte uncompressed) and ed25519-sized raw keys. */
export function randomKeys(count: number): { secp: Uint8Array[]; ed: Buffer[] } {
  const secp: Uint8Array[] = [];
  while (secp.length < count) {
    const priv = randomBytes(32);
    if (!ecc.isPrivate(priv)) continue;
    secp.push(ecc.pointFromScalar(priv, false) as Uint8Array);
  }
  // Any 32 bytes are a valid Stellar account id encoding; real ed25519 points are not needed to derive.
  const ed = Array.from({ length: count }, () => randomBytes(32));
  return { secp, ed };
}

/**
 * Each family's callback as the custody service sends it for a withdrawal: Ethereum one
 * secp256k1 signature over a 32-byte digest; Bitcoin one per input, here a 10-input withdrawal;
 * Stellar one ed25519 signature over the transaction hash; Solana one ed25519 signature over
 * the whole message (a transfer with its durable nonce advance and compute budget: ~250 bytes).
 */
export const CALLBACK_SHAPES: Record<'ethereum' | 'bitcoin' | 'stellar' | 'solana', CallbackShape & { family: string }> = {
  ethereum: { family: 'Ethereum', ...ETHEREUM_CALLBACK },
  bitcoin: { family: 'Bitcoin', ledgerId: 'btcregtest', scheme: 'secp256k1', payloads: 10, dataBytes: 32, hashAlgorithm: 'DOUBLE_SHA256' },
  stellar: { family: 'Stellar', ledgerId: 'stellardev', scheme: 'ed25519', payloads: 1, dataBytes: 32, hashAlgorithm: 'SHA256' },
  solana: { family: 'Solana', ledgerId: 'solanadev', scheme: 'ed25519', payloads: 1, dataBytes: 250, hashAlgorithm: 'PLAIN' },
};
