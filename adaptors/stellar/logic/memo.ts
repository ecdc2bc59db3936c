import { Memo, StrKey } from '@stellar/stellar-base';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { HorizonAccount } from '../network/horizon.js';

/**
 * Memo text format, as clients send it in `memo` or in a recipient's `?memo=`:
 *   `text:<up to 28 bytes UTF-8>`, `id:<uint64 decimal>`, `hash:<64 hex>`, `return:<64 hex>`;
 *   anything else is a text memo as written. To send a text that starts with one of those
 *   prefixes, write it after `text:` (`text:id:7`).
 */

const UINT64_MAX = 2n ** 64n - 1n;
const HEX32 = /^[0-9a-fA-F]{64}$/;

export function parseMemo(input: string): Memo {
  if (typeof input !== 'string' || input.length === 0) throw new InvalidArgumentError('memo must be a non-empty string');
  const m = /^(text|id|hash|return):([\s\S]*)$/.exec(input);
  const [kind, value] = m ? [m[1] as string, m[2] as string] : ['text', input];
  if (kind === 'id') {
    if (!/^\d{1,20}$/.test(value) || BigInt(value) > UINT64_MAX) {
      throw new InvalidArgumentError(`memo id must be an unsigned 64-bit decimal integer, got '${value}'`);
    }
    return Memo.id(BigInt(value).toString());
  }
  if (kind === 'hash' || kind === 'return') {
    if (!HEX32.test(value)) throw new InvalidArgumentError(`memo ${kind} must be 32 bytes as 64 hex characters`);
    return kind === 'hash' ? Memo.hash(value.toLowerCase()) : Memo.return(value.toLowerCase());
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes === 0 || bytes > 28) throw new InvalidArgumentError(`memo text must be 1 to 28 bytes of UTF-8, got ${bytes}`);
  return Memo.text(value);
}

/** Memo from the intent and from the recipient's `?memo=`; both may be given only if they agree. */
export function resolveMemo(intentMemo: string | undefined, recipientMemo: string | undefined): Memo {
  if (intentMemo === '') intentMemo = undefined;
  if (intentMemo !== undefined && recipientMemo !== undefined && intentMemo !== recipientMemo) {
    throw new InvalidArgumentError(`memo '${intentMemo}' conflicts with the recipient's memo '${recipientMemo}'`);
  }
  const text = intentMemo ?? recipientMemo;
  return text === undefined ? Memo.none() : parseMemo(text);
}

/**
 * SEP-29: an account that needs a memo on incoming payments (an exchange's shared deposit
 * account) says so with the data entry `config.memo_required` = "1". A muxed `M…`
 * destination carries its own id and needs no memo (SEP-29 checks only non-muxed ones).
 */
export function checkMemoRequired(destination: string, account: HorizonAccount | undefined, memo: Memo): void {
  if (memo.type !== 'none' || !account || StrKey.isValidMed25519PublicKey(destination)) return;
  const value = account.data?.['config.memo_required'];
  if (value === undefined || Buffer.from(value, 'base64').toString('utf8') !== '1') return;
  throw new InvalidArgumentError(
    `${destination} requires a memo on incoming payments (SEP-29: its config.memo_required is 1); send it with the memo the recipient gave, or to its muxed M… address`,
    { field: 'memo' },
  );
}
