import { extractBaseAddress, StrKey } from '@stellar/stellar-base';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { PublicKey } from '../../../src/ledger/public-key.js';
import { parseMemo } from './memo.js';

/**
 * `account` is the only format a key maps to: the `G…` StrKey account id. Muxed `M…`
 * addresses (SEP-23) are accepted as recipients but never derived, since their 64-bit id is
 * not part of the key.
 */
export const ADDRESS_FORMATS = ['account'] as const;

export function addressFromPublicKey(key: PublicKey, format?: string): string {
  if (format !== undefined && format !== 'account') {
    throw new InvalidArgumentError(`Unknown address format '${format}'. Valid values: ${ADDRESS_FORMATS.join(', ')}`);
  }
  if (key.scheme !== 'ed25519' || key.bytes.length !== 32) {
    throw new InvalidArgumentError('Stellar addresses need a 32-byte ed25519 key');
  }
  return StrKey.encodeEd25519PublicKey(Buffer.from(key.bytes));
}

/** A `G…` account id as a public key, for callers that accept keys in Stellar's own spelling. */
export function parseNativePublicKey(text: string): PublicKey | undefined {
  const t = typeof text === 'string' ? text.trim() : '';
  if (!StrKey.isValidEd25519PublicKey(t)) return undefined;
  return { scheme: 'ed25519', bytes: Uint8Array.from(StrKey.decodeEd25519PublicKey(t)) };
}

export interface Recipient {
  address: string;
  memo?: string;
}

/**
 * Splits the `address?memo=…` recipient form (the memo URL-encoded, in the memo text format
 * of memo.ts). A plain address comes back as is. Other query parameters are refused so a
 * typo cannot silently drop a memo an exchange needs.
 */
export function splitRecipient(recipient: string): Recipient {
  const q = recipient.indexOf('?');
  if (q < 0) return { address: recipient };
  const params = new URLSearchParams(recipient.slice(q + 1));
  const keys = [...params.keys()];
  if (keys.length !== 1 || keys[0] !== 'memo') {
    throw new InvalidArgumentError(`recipient '${recipient}': only a single ?memo=… parameter is understood`);
  }
  return { address: recipient.slice(0, q), memo: params.get('memo') ?? '' };
}

/** `G…` or muxed `M…`, optionally with a well-formed `?memo=`. */
export function isValidAddress(recipient: string): boolean {
  if (typeof recipient !== 'string') return false;
  try {
    const { address, memo } = splitRecipient(recipient);
    if (!StrKey.isValidEd25519PublicKey(address) && !StrKey.isValidMed25519PublicKey(address)) return false;
    if (memo !== undefined) parseMemo(memo);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `G…` account a recipient pays: a muxed `M…` address (SEP-23) credits its base account,
 * and a `?memo=` only labels the payment. So `G…`, `G…?memo=…` and every `M…` of one account
 * give one text.
 */
export function canonicalAddress(recipient: string): string {
  return extractBaseAddress(splitRecipient(recipient).address);
}
