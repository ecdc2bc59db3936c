/** Data the bench prepares: pre-created operations with real signatures, and key batches. */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as ecc from 'tiny-secp256k1';
import { toCustodyKeyId, type PublicKey } from '../src/ledger/public-key.js';
import type { Operation } from '../src/withdrawals/model/operation.js';
import type { OperationStore } from '../src/withdrawals/store/operation-store.js';

/** A fixed signing key, known to the bench only (stands in for a custody vault key). */
const PRIVATE = createHash('sha256').update('byow bench vault key').digest();

export const benchKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(ecc.pointFromScalar(PRIVATE, true) as Uint8Array) };

export function fakeOperation(id: string, ledgerId: string, digest: string, status: Operation['status'] = 'EXECUTING'): Operation {
  const now = new Date().toISOString();
  return {
    id,
    operationID: id,
    vaultId: 'bench-vault',
    ledgerId,
    request: { recipientAddress: '0x00000000000000000000000000000000000000B0', asset: 'ETH', amount: '0.001', description: 'bench', fee: 'MEDIUM' },
    recipientAddress: '0x00000000000000000000000000000000000000B0',
    unsigned: {
      txs: [{ serialized: '00' }],
      payloads: [
        {
          digest,
          keyId: toCustodyKeyId(benchKey),
          publicKey: Buffer.from(benchKey.bytes).toString('hex'),
          hashAlgorithm: 'SHA3_256',
          txIndex: 0,
          inputIndex: 0,
        },
      ],
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

/**
 * Stores `count` operations of one payload each (a random digest for the bench key) and
 * writes the matching callback bodies, one JSON text per line, as the custody service
 * would send them: the key as DER SPKI hex, the signature r||s upper-case hex, v 0/1.
 */
export async function prepareCallbacks(store: OperationStore, ledgerId: string, count: number, file: string, tag: string): Promise<void> {
  const keyId = toCustodyKeyId(benchKey);
  const lines: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch: Promise<void>[] = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const digest = randomBytes(32);
      const { signature, recoveryId } = ecc.signRecoverable(digest, PRIVATE);
      const hex = digest.toString('hex');
      batch.push(store.create(fakeOperation(`${tag}-${i}`, ledgerId, hex)));
      lines.push(
        JSON.stringify({
          publicKeys: [keyId],
          providerData: JSON.stringify({ reference: `${tag}-${i}` }),
          dataToSign: [hex],
          signatures: [Buffer.from(signature).toString('hex').toUpperCase()],
          v: [recoveryId],
        }),
      );
    }
    await Promise.all(batch);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
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
