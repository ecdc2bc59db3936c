import { createHash, generateKeyPairSync, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto';
import { keccak256 } from 'ethers';
import * as ecc from 'tiny-secp256k1';
import { toCustodyKeyId, type PublicKey } from '../../ledger/public-key.js';

/** Vault schemes as the custody service names them on the wire. */
export type VaultScheme = 'ECDSA' | 'EDDSA';

/** A simulator key. Private material stays in this process's memory only. */
export interface SimKey {
  scheme: VaultScheme;
  publicKey: PublicKey;
  /** What the custody service reports: DER SPKI hex uppercase (ECDSA), raw 32-byte hex (EdDSA). */
  keyId: string;
  sign(digest: Uint8Array): { signature: string; v: number };
}

export function createKey(scheme: VaultScheme): SimKey {
  if (scheme === 'EDDSA') {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    // The raw key is the last 32 bytes of its SPKI encoding.
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    return edKey(privateKey, { scheme: 'ed25519', bytes: Uint8Array.from(raw) });
  }
  let priv: Uint8Array;
  do priv = Uint8Array.from(randomBytes(32));
  while (!ecc.isPrivate(priv));
  const point = ecc.pointFromScalar(priv, true);
  if (!point) throw new Error('secp256k1 key generation failed');
  const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(point) };
  return {
    scheme,
    publicKey,
    keyId: toCustodyKeyId(publicKey),
    sign(digest) {
      // RFC 6979 and low-S, like the real service; v is the recovery id.
      const { signature, recoveryId } = ecc.signRecoverable(digest, priv);
      return { signature: Buffer.from(signature).toString('hex').toUpperCase(), v: recoveryId };
    },
  };
}

function edKey(privateKey: KeyObject, publicKey: PublicKey): SimKey {
  return {
    scheme: 'EDDSA',
    publicKey,
    keyId: toCustodyKeyId(publicKey),
    sign(digest) {
      const signature = nodeSign(null, digest, privateKey);
      return { signature: signature.toString('hex').toUpperCase(), v: 0 };
    },
  };
}

export const HASH_ALGORITHMS = ['DOUBLE_SHA256', 'SHA3_256', 'SHA256'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];

/**
 * How the custody service turns a raw transaction into the digest approvers sign.
 * `SHA3_256` is Keccak-256 (Ethereum's hash), not NIST SHA3-256; node:crypto only has
 * the latter, so ethers' keccak256 (a direct dependency already) does it.
 */
export function hashPreimage(algorithm: HashAlgorithm, preimage: Uint8Array): string {
  const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
  switch (algorithm) {
    case 'DOUBLE_SHA256':
      return sha256(sha256(preimage)).toString('hex');
    case 'SHA256':
      return sha256(preimage).toString('hex');
    case 'SHA3_256':
      return keccak256(preimage).slice(2);
  }
}
