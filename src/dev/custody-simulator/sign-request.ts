import { z } from 'zod';
import { parsePublicKey, type PublicKey } from '../../ledger/public-key.js';
import { HASH_ALGORITHMS, hashPreimage, type HashAlgorithm } from './keys.js';
import { badRequest } from './problem.js';

/** A 32-byte digest, or (ledgerHashAlgorithm PLAIN, ed25519) plain data up to a Solana packet. */
const digest = z.string().regex(/^(?:0x)?(?:[0-9a-fA-F]{2}){1,1232}$/, 'must be hex: a 32-byte digest, or plain data of at most 1232 bytes');
/** Algorithms under which dataToSign is the data itself, which ed25519 signs as it is (NONE as operations report it). */
const PLAIN_DATA = ['NONE', 'PLAIN'];
const hexOrEmpty = z.string().regex(/^(?:0x)?(?:[0-9a-fA-F]{2})*$/, 'must be hex of whole bytes');

/** `POST {mng}/vaults/{id}/sign`, as custody-facts.md describes it; bounded so a bad client cannot exhaust memory. */
export const signRequestSchema = z.object({
  description: z.string().max(2_000).default(''),
  dataToSign: z.array(digest).min(1).max(1_000),
  publicKeys: z.array(z.string().max(400)).min(1).max(1_000),
  rawTransactions: z.array(hexOrEmpty.max(4_000_000)).max(1_000).default([]),
  ledgerHashAlgorithm: z.string().max(64).optional(),
  ledger: z.string().min(1).max(64),
  providerData: z.string().max(4_000_000),
  details: z.unknown().optional(),
  callbackUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export type SignRequestBody = z.infer<typeof signRequestSchema>;

/**
 * Whether `dataToSign` is plain data (ledgerHashAlgorithm PLAIN or NONE, an ed25519 key):
 * true or false, or the message for an entry that is neither a 32-byte digest nor allowed
 * plain data.
 */
export function plainDataMistake(req: Pick<SignRequestBody, 'dataToSign' | 'ledgerHashAlgorithm'>, scheme: PublicKey['scheme']): boolean | string {
  const plain = PLAIN_DATA.includes(req.ledgerHashAlgorithm?.toUpperCase() ?? '') && scheme === 'ed25519';
  const bad = plain ? -1 : req.dataToSign.findIndex((d) => d.replace(/^0x/, '').length !== 64);
  return bad < 0 ? plain : `dataToSign[${bad}] must be a 32-byte hex digest (plain data needs ledgerHashAlgorithm PLAIN and an EdDSA vault)`;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ');
}

export const hexBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

/**
 * Checks a sign request against the vault the way an approver would want it checked:
 * every key is the vault's own, and every preimage given really hashes to its digest.
 */
export function validateSignRequest(vaultKey: PublicKey, vaultId: string, input: unknown): SignRequestBody {
  const parsed = signRequestSchema.safeParse(input ?? {});
  if (!parsed.success) throw badRequest(describeIssues(parsed.error), 'invalid_sign_request');
  const req = parsed.data;
  const count = req.dataToSign.length;
  if (req.publicKeys.length !== count) {
    throw badRequest(`publicKeys has ${req.publicKeys.length} entries; dataToSign has ${count}`, 'invalid_sign_request');
  }
  if (req.rawTransactions.length !== 0 && req.rawTransactions.length !== count) {
    throw badRequest(`rawTransactions has ${req.rawTransactions.length} entries; dataToSign has ${count}`, 'invalid_sign_request');
  }
  const own = Buffer.from(vaultKey.bytes);
  req.publicKeys.forEach((text, i) => {
    let key: PublicKey;
    try {
      key = parsePublicKey(text, vaultKey.scheme);
    } catch (e) {
      throw badRequest(`publicKeys[${i}]: ${(e as Error).message}`, 'invalid_public_key');
    }
    if (!own.equals(Buffer.from(key.bytes))) {
      throw badRequest(`publicKeys[${i}] is not the key of vault ${vaultId}`, 'wrong_public_key');
    }
  });
  const plain = plainDataMistake(req, vaultKey.scheme);
  if (typeof plain === 'string') throw badRequest(plain, 'invalid_sign_request');
  req.rawTransactions.forEach((raw, i) => {
    if (raw.replace(/^0x/, '') === '') return;
    const algorithm = req.ledgerHashAlgorithm?.toUpperCase();
    if (plain) {
      if (raw.replace(/^0x/, '').toLowerCase() !== (req.dataToSign[i] as string).replace(/^0x/, '').toLowerCase()) {
        throw badRequest(`rawTransactions[${i}] is not dataToSign[${i}]: with ${algorithm} the data signed is the raw data itself`, 'digest_mismatch');
      }
      return;
    }
    if (!HASH_ALGORITHMS.includes(algorithm as HashAlgorithm)) {
      throw badRequest(
        `ledgerHashAlgorithm '${req.ledgerHashAlgorithm ?? ''}' is needed to check rawTransactions; valid: ${HASH_ALGORITHMS.join(', ')}`,
        'invalid_hash_algorithm',
      );
    }
    const expected = (req.dataToSign[i] as string).replace(/^0x/, '').toLowerCase();
    const actual = hashPreimage(algorithm as HashAlgorithm, hexBytes(raw));
    if (actual !== expected) {
      throw badRequest(
        `rawTransactions[${i}] hashes to ${actual} with ${algorithm}, not to dataToSign[${i}] ${expected}`,
        'digest_mismatch',
      );
    }
  });
  return req;
}
