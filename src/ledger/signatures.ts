import { createPublicKey, type KeyObject, verify as edVerify } from 'node:crypto';
import { VerificationError } from '../platform/errors.js';
import type { PublicKey } from './public-key.js';
import { secp256k1 } from './secp256k1.js';

/**
 * Signature checks live here once, for every ledger: the custody callback's `r||s`
 * and `v` are normalised and verified against the digest and key this service stored,
 * never against what the callback echoes.
 */

/** The order of secp256k1's group. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = SECP256K1_N >> 1n;

/** One half (32 bytes) of a 64-byte `r || s`: never empty, so its hex is a number as it is. */
function toBig(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

function to32(n: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
}

/**
 * The malleated twin of 64 bytes `r || s`: `r || N − s`, as valid as the original with the other
 * recovery id (high S for a low one and back).
 */
export function otherS(signature: Uint8Array): Uint8Array {
  const twin = new Uint8Array(64);
  twin.set(signature.subarray(0, 32), 0);
  twin.set(to32(SECP256K1_N - toBig(signature.subarray(32))), 32);
  return twin;
}

/** Whether 64 bytes `r || s` have the low S that verifySecp256k1 returns and Ethereum nodes require (EIP-2). */
export function isLowS(signature: Uint8Array): boolean {
  return signature.length === 64 && toBig(signature.subarray(32)) <= HALF_N;
}

export interface NormalisedSignature {
  /** 64 bytes `r || s`, low-S. */
  signature: Uint8Array;
  recoveryId: 0 | 1;
}

function parseCompact(sigHex: string): Uint8Array {
  if (typeof sigHex !== 'string' || !/^(?:0x)?[0-9a-fA-F]{128}$/.test(sigHex)) {
    throw new VerificationError('signature must be 64 bytes r||s in hex', 'malformed-signature');
  }
  return Uint8Array.from(Buffer.from(sigHex.replace(/^0x/, ''), 'hex'));
}

/**
 * Verifies an ECDSA secp256k1 signature over `digest` by `key`, accepting `v` as 0/1 or the
 * legacy 27/28 (whose meaning old custody releases swapped), and high-S (normalised to low-S
 * with the recovery id flipped). The recovery id returned is the one that recovers `key`
 * from the low-S signature, whatever `v` claimed.
 */
export function verifySecp256k1(digest: Uint8Array, sigHex: string, v: number, key: PublicKey): NormalisedSignature {
  if (digest.length !== 32) throw new VerificationError('digest must be 32 bytes', 'malformed-digest');
  if (![0, 1, 27, 28].includes(v)) {
    throw new VerificationError(`v must be 0, 1, 27 or 28, got ${String(v)}`, 'malformed-v');
  }
  const sig = parseCompact(sigHex);
  const r = toBig(sig.subarray(0, 32));
  const s = toBig(sig.subarray(32));
  if (r === 0n || r >= SECP256K1_N || s === 0n || s >= SECP256K1_N) {
    throw new VerificationError('signature r or s out of range', 'malformed-signature');
  }
  let hint = v >= 27 ? v - 27 : v;
  let lowS = sig;
  if (s > HALF_N) {
    lowS = otherS(sig);
    hint ^= 1;
  }
  const expected = Buffer.from(key.bytes);
  // Recovery to the stored key proves the signature valid for it; try the hint first.
  for (const recoveryId of [hint, hint ^ 1] as (0 | 1)[]) {
    const recovered = secp256k1.recover(digest, lowS, recoveryId, true);
    if (recovered && expected.equals(Buffer.from(recovered))) return { signature: lowS, recoveryId };
  }
  throw new VerificationError('signature does not verify against the stored key and digest', 'bad-signature');
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const ed25519KeyObject = (bytes: Uint8Array): KeyObject => createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, bytes]), format: 'der', type: 'spki' });

/**
 * Ed25519 public keys as node:crypto holds them, each made once. Making the key object costs
 * about as much as the check with a ready one (a check from raw bytes 260 µs, with the object
 * kept 150 µs), and a vault signs many withdrawals with one key. Held by the receiver, which
 * checks every signature as it comes in; bounded: past `max` keys the oldest goes.
 */
export class Ed25519Keys {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly max = 1_000) {}

  get(bytes: Uint8Array): KeyObject {
    const id = Buffer.from(bytes).toString('hex');
    const known = this.keys.get(id);
    if (known) return known;
    const made = ed25519KeyObject(bytes);
    if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(id, made);
    return made;
  }
}

/** Verifies an ed25519 signature over `message` (for Stellar, the transaction hash); `keys` keeps the key objects made. */
export function verifyEd25519(message: Uint8Array, sigHex: string, key: PublicKey, keys?: Ed25519Keys): NormalisedSignature {
  const sig = parseCompact(sigHex);
  const pub = keys ? keys.get(key.bytes) : ed25519KeyObject(key.bytes);
  if (!edVerify(null, message, pub, sig)) {
    throw new VerificationError('ed25519 signature does not verify against the stored key and digest', 'bad-signature');
  }
  return { signature: sig, recoveryId: 0 };
}

/** Verifies one callback signature for a payload, whatever the scheme. */
export function verifySignature(digestHex: string, sigHex: string, v: number | undefined, key: PublicKey, keys?: Ed25519Keys): NormalisedSignature {
  const digest = Uint8Array.from(Buffer.from(digestHex, 'hex'));
  return key.scheme === 'ed25519' ? verifyEd25519(digest, sigHex, key, keys) : verifySecp256k1(digest, sigHex, v ?? 0, key);
}
