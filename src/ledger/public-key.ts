import * as ecc from 'tiny-secp256k1';
import { InvalidArgumentError } from '../platform/errors.js';

export type SignatureScheme = 'secp256k1' | 'ed25519';

/** A vault public key, normalised: compressed (33 bytes) for secp256k1, raw 32 bytes for ed25519. */
export interface PublicKey {
  scheme: SignatureScheme;
  bytes: Uint8Array;
  /** secp256k1: the 65-byte form when the input carried it, so it is not recomputed (a square root). */
  uncompressed?: Uint8Array;
}

// DER SubjectPublicKeyInfo headers as the custody service emits them (custody-facts.md).
const SPKI_SECP256K1_UNCOMPRESSED = '3056301006072a8648ce3d020106052b8104000a034200';
const SPKI_SECP256K1_COMPRESSED = '3036301006072a8648ce3d020106052b8104000a032200';
const SPKI_ED25519 = '302a300506032b6570032100';

const HEX = /^(?:0x)?((?:[0-9a-fA-F]{2})+)$/;

function hexBytes(text: string): Uint8Array | undefined {
  const m = HEX.exec(text.trim());
  return m ? Buffer.from(m[1] as string, 'hex') : undefined;
}

/**
 * Parses a hex public key in any form the custody service uses: DER SPKI, raw
 * uncompressed (65 bytes), raw compressed (33 bytes) for secp256k1, raw 32 bytes (or SPKI)
 * for ed25519; upper or lower case. Throws a message without a prefix; callers add context.
 */
export function parsePublicKey(text: string, scheme: SignatureScheme): PublicKey {
  if (typeof text !== 'string') throw new Error('a public key must be a hex string');
  const bytes = hexBytes(text);
  if (!bytes) throw new Error('not a hex string of whole bytes');
  const lower = Buffer.from(bytes).toString('hex');
  if (scheme === 'ed25519') {
    let raw = bytes;
    if (lower.startsWith(SPKI_ED25519) && bytes.length === 44) raw = bytes.subarray(12);
    if (raw.length !== 32) throw new Error(`an ed25519 key has 32 bytes (or 44 as DER SPKI), got ${bytes.length}`);
    return { scheme, bytes: Uint8Array.from(raw) };
  }
  let point = bytes;
  if (lower.startsWith(SPKI_SECP256K1_UNCOMPRESSED) && bytes.length === 88) point = bytes.subarray(23);
  else if (lower.startsWith(SPKI_SECP256K1_COMPRESSED) && bytes.length === 56) point = bytes.subarray(23);
  else if (lower.startsWith('30')) throw new Error('DER key is not a secp256k1 SubjectPublicKeyInfo');
  if (point.length !== 65 && point.length !== 33) {
    throw new Error(`a secp256k1 key has 33 or 65 bytes (or 56/88 as DER SPKI), got ${bytes.length}`);
  }
  if (!ecc.isPoint(point)) throw new Error('not a point on secp256k1');
  if (point.length === 33) return { scheme, bytes: Uint8Array.from(point) };
  return { scheme, bytes: Uint8Array.from(ecc.pointCompress(point, true)), uncompressed: Uint8Array.from(point) };
}

const STORED_FORM = { secp256k1: /^0[23][0-9a-f]{64}$/, ed25519: /^[0-9a-f]{64}$/ };

/**
 * A key as this service stored it (`publicKeyHex` of a key parsed when the vault was
 * registered): decoded without checking the point again, which for a compressed secp256k1 key
 * costs a square root (~30 µs, a tenth of a callback's CPU). Used to verify against, so a
 * key that is no point only makes every signature fail. Any other form is parsed in full.
 */
export function storedPublicKey(hex: string, scheme: SignatureScheme): PublicKey {
  return STORED_FORM[scheme].test(hex) ? { scheme, bytes: Buffer.from(hex, 'hex') } : parsePublicKey(hex, scheme);
}

/** Same as parsePublicKey but as a 422 naming the field. */
export function parsePublicKeyArg(text: string, scheme: SignatureScheme, field: string): PublicKey {
  try {
    return parsePublicKey(text, scheme);
  } catch (e) {
    throw new InvalidArgumentError(`${field}: ${(e as Error).message}`, { field });
  }
}

/** The 65-byte `04 || X || Y` form of a secp256k1 key. */
export function uncompressedPoint(key: PublicKey): Uint8Array {
  if (key.scheme !== 'secp256k1') throw new Error('only secp256k1 keys have an uncompressed form');
  return key.uncompressed ?? Uint8Array.from(ecc.pointCompress(key.bytes, false));
}

export function publicKeyHex(key: PublicKey): string {
  return Buffer.from(key.bytes).toString('hex');
}

/** DER SPKI hex, the form the custody service reports keys in (uppercase, uncompressed for ECDSA). */
export function toCustodyKeyId(key: PublicKey): string {
  const hex =
    key.scheme === 'secp256k1' ? SPKI_SECP256K1_UNCOMPRESSED + Buffer.from(uncompressedPoint(key)).toString('hex') : Buffer.from(key.bytes).toString('hex');
  return hex.toUpperCase();
}
