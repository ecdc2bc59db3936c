import { createHash, createPrivateKey, createPublicKey, randomBytes, sign as nodeSign } from 'node:crypto';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { keccak256 } from 'ethers';
import { z } from 'zod';
import * as ecc from 'tiny-secp256k1';
import { publicKeyHex, toCustodyKeyId, type PublicKey } from '../../ledger/public-key.js';
import type { CryptoKind, Hierarchy } from './model.js';

const bip32 = BIP32Factory(ecc);
// PKCS#8 wrapping of a raw 32-byte ed25519 seed, so node:crypto can sign with it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface VaultSigner {
  publicKey: PublicKey;
  /** The custody wire form: DER SPKI hex uppercase (ECDSA) or raw hex (EdDSA). */
  keyId: string;
  sign(digest: Uint8Array): { signature: string; v: number };
}

/** Fresh private material for a vault, hex (see Vault.secret). */
export function newSecret(cryptoKind: CryptoKind, hierarchy: Hierarchy): string {
  if (hierarchy !== 'NONE') return randomBytes(64).toString('hex');
  if (cryptoKind === 'EDDSA') return randomBytes(32).toString('hex');
  let priv: Buffer;
  do priv = randomBytes(32);
  while (!ecc.isPrivate(priv));
  return priv.toString('hex');
}

function secpSigner(priv: Uint8Array): VaultSigner {
  const point = ecc.pointFromScalar(priv, true);
  if (!point) throw new Error('invalid secp256k1 private key');
  const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(point) };
  return {
    publicKey,
    keyId: toCustodyKeyId(publicKey),
    sign(digest) {
      // RFC 6979, low-S; v is the recovery id, as the real service sends it.
      const { signature, recoveryId } = ecc.signRecoverable(digest, priv);
      return { signature: Buffer.from(signature).toString('hex').toUpperCase(), v: recoveryId };
    },
  };
}

function edSigner(seed: Buffer): VaultSigner {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  const publicKey: PublicKey = { scheme: 'ed25519', bytes: Uint8Array.from(raw) };
  return {
    publicKey,
    keyId: toCustodyKeyId(publicKey),
    sign(digest) {
      return { signature: nodeSign(null, digest, privateKey).toString('hex').toUpperCase(), v: 0 };
    },
  };
}

export function bip32Root(secret: string): BIP32Interface {
  return bip32.fromSeed(Buffer.from(secret, 'hex'));
}

/** A neutered BIP32 node (an extended public key) from its key and chain code. */
export function bip32FromPublicKey(publicKey: Uint8Array, chainCode: Uint8Array): BIP32Interface {
  return bip32.fromPublicKey(publicKey, chainCode);
}

/** The signer at `path` ('m' for a single-key vault, a BIP32 path otherwise). */
export function signerAt(vault: { secret: string; cryptoKind: CryptoKind; hierarchy: Hierarchy }, path: string): VaultSigner {
  if (vault.hierarchy === 'NONE') {
    const secret = Buffer.from(vault.secret, 'hex');
    return vault.cryptoKind === 'EDDSA' ? edSigner(secret) : secpSigner(Uint8Array.from(secret));
  }
  const node = bip32Root(vault.secret).derivePath(path);
  if (!node.privateKey) throw new Error(`no private key at ${path}`);
  return secpSigner(Uint8Array.from(node.privateKey));
}

/** The index key of Vault.keys: the normalised (compressed / raw) public key, hex lowercase. */
export const keyIndex = (key: PublicKey): string => publicKeyHex(key);

/** `m/44'/c'/a'` and below; `'` marks hardened levels. */
export const accountPath = (coinType: number, account: number): string => `m/44'/${coinType}'/${account}'`;

/**
 * A BIP44 coin type in a body: the interface types it as an integer (int32), and the service
 * binds a JSON string holding a whole number to it as well (the published samples send what a
 * prompt returned, e.g. `"0"`). Anything else, `"60a"`, `"-1"`, `1.5` or `true`, is refused.
 */
export const coinTypeSchema = z.preprocess(
  (v) => (typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v),
  z.number({ error: 'must be a whole number (a JSON number or a string of digits)' }).int('must be a whole number').min(0).max(0x7fffffff),
);

/** A BIP32 path `m/…` of at most 32 levels, each index below 2^31 (`'` hardens it). */
export const derivationPathSchema = z
  .string()
  .max(400)
  .regex(/^m(?:\/\d{1,10}'?){0,32}$/, "must look like m/44'/0'/0'/0/1")
  .refine(
    (p) =>
      p
        .split('/')
        .slice(1)
        .every((level) => Number.parseInt(level, 10) < 0x80000000),
    'every index must be below 2^31',
  );

/** A key of no vault (a stranger's), for the `swapKey` fault and for tests forging callbacks. */
export function randomSigner(cryptoKind: CryptoKind): VaultSigner {
  return signerAt({ secret: newSecret(cryptoKind, 'NONE'), cryptoKind, hierarchy: 'NONE' }, 'm');
}

export const hexBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

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
