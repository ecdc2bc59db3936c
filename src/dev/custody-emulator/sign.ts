import { z } from 'zod';
import { parsePublicKey, type PublicKey } from '../../ledger/public-key.js';
import { bip32Root, derivationPathSchema, HASH_ALGORITHMS, hashPreimage, hexBytes, keyIndex, type HashAlgorithm } from './keys.js';
import type { SignPayload, Vault } from './model.js';
import { badRequest, parse } from './problem.js';

/** A 32-byte digest, or (ledgerHashAlgorithm PLAIN, ed25519) plain data up to a Solana packet. */
const digest = z.string().regex(/^(?:0x)?(?:[0-9a-fA-F]{2}){1,1232}$/, 'must be hex: a 32-byte digest, or plain data of at most 1232 bytes');
/** Algorithms under which dataToSign is the data itself, which ed25519 signs as it is (NONE as operations report it). */
const PLAIN_DATA = ['NONE', 'PLAIN'];
const hexOrEmpty = z.string().regex(/^(?:0x)?(?:[0-9a-fA-F]{2})*$/, 'must be hex of whole bytes');

/**
 * `POST {mng}/vaults/{id}/sign` as the connector sends it (custody-facts.md), with the facts
 * file's `derivationStrings` and `allowConcurrentKeyUsage`; bounded so a bad client cannot
 * exhaust memory.
 */
export const emulatorSignSchema = z.object({
  description: z.string().max(2_000).default(''),
  dataToSign: z.array(digest).min(1).max(1_000),
  publicKeys: z.array(z.string().max(400)).min(1).max(1_000),
  rawTransactions: z.array(hexOrEmpty.max(4_000_000)).max(1_000).default([]),
  ledgerHashAlgorithm: z.string().max(64).optional(),
  ledger: z.string().min(1).max(64).optional(),
  providerData: z.string().max(4_000_000).default(''),
  details: z.unknown().optional(),
  callbackUrl: z.url({ protocol: /^https?$/ }).optional(),
  derivationStrings: z.array(derivationPathSchema).max(1_000).optional(),
  allowConcurrentKeyUsage: z.boolean().optional(),
});

/**
 * Whether `dataToSign` is plain data (ledgerHashAlgorithm PLAIN or NONE, an ed25519 key):
 * true or false, or the message for an entry that is neither a 32-byte digest nor allowed
 * plain data.
 */
function plainDataMistake(req: { dataToSign: string[]; ledgerHashAlgorithm?: string }, scheme: PublicKey['scheme']): boolean | string {
  const plain = PLAIN_DATA.includes(req.ledgerHashAlgorithm?.toUpperCase() ?? '') && scheme === 'ed25519';
  const bad = plain ? -1 : req.dataToSign.findIndex((d) => d.replace(/^0x/, '').length !== 64);
  return bad < 0 ? plain : `dataToSign[${bad}] must be a 32-byte hex digest (plain data needs ledgerHashAlgorithm PLAIN and an EdDSA vault)`;
}

const invalid = (details: string, id = 'invalid-sign-request') => badRequest(details, id);

/**
 * Checks a sign request against the vault as an approver would want it checked: every key
 * is one of the vault's keys (or the key at the derivation string given for it), and every
 * preimage given hashes to its digest. Keys reached through `derivationStrings` are
 * registered on `vault` (the caller stores it).
 */
export function validateSign(vault: Vault, input: unknown): { description: string; payload: SignPayload } {
  const req = parse(emulatorSignSchema, input);
  const count = req.dataToSign.length;
  for (const [field, list] of [
    ['publicKeys', req.publicKeys],
    ['rawTransactions', req.rawTransactions],
    ['derivationStrings', req.derivationStrings],
  ] as const) {
    if (list && list.length !== count && !(field === 'rawTransactions' && list.length === 0)) {
      throw invalid(`${field} has ${list.length} entries; dataToSign has ${count}`);
    }
  }
  const scheme = vault.cryptoKind === 'EDDSA' ? 'ed25519' : 'secp256k1';
  const plain = plainDataMistake(req, scheme);
  if (typeof plain === 'string') throw invalid(plain);
  req.publicKeys.forEach((text, i) => {
    let key: PublicKey;
    try {
      key = parsePublicKey(text, scheme);
    } catch (e) {
      throw invalid(`publicKeys[${i}]: ${(e as Error).message}`, 'invalid-public-key');
    }
    const derivation = req.derivationStrings?.[i];
    if (derivation && vault.hierarchy !== 'NONE') {
      const node = bip32Root(vault.secret).derivePath(derivation);
      if (Buffer.compare(Buffer.from(node.publicKey), Buffer.from(key.bytes)) === 0) vault.keys[keyIndex(key)] = derivation;
    }
    if (vault.keys[keyIndex(key)] === undefined) throw invalid(`publicKeys[${i}] is not a key of vault ${vault.id}`, 'wrong-public-key');
  });
  const algorithm = req.ledgerHashAlgorithm?.toUpperCase();
  req.rawTransactions.forEach((raw, i) => {
    if (raw.replace(/^0x/, '') === '' || algorithm === 'IGNORE') return;
    if (algorithm === 'PLAIN') {
      // Plain data is signed as it is: a raw transaction beside it must be that data.
      if (plain && raw.replace(/^0x/, '').toLowerCase() !== (req.dataToSign[i] as string).replace(/^0x/, '').toLowerCase()) {
        throw invalid(`rawTransactions[${i}] is not dataToSign[${i}]: with PLAIN the data signed is the raw data itself`, 'digest-mismatch');
      }
      return;
    }
    if (!HASH_ALGORITHMS.includes(algorithm as HashAlgorithm)) {
      throw invalid(
        `ledgerHashAlgorithm '${req.ledgerHashAlgorithm ?? ''}' is needed to check rawTransactions; valid: IGNORE, PLAIN, ${HASH_ALGORITHMS.join(', ')}`,
        'invalid-hash-algorithm',
      );
    }
    const expected = (req.dataToSign[i] as string).replace(/^0x/, '').toLowerCase();
    const actual = hashPreimage(algorithm as HashAlgorithm, hexBytes(raw));
    if (actual !== expected)
      throw invalid(`rawTransactions[${i}] hashes to ${actual} with ${algorithm}, not to dataToSign[${i}] ${expected}`, 'digest-mismatch');
  });
  const payload: SignPayload = {
    dataToSign: req.dataToSign,
    publicKeys: req.publicKeys,
    rawTransactions: req.rawTransactions,
    ledgerHashAlgorithm: req.ledgerHashAlgorithm,
    ledger: req.ledger,
    providerData: req.providerData,
    details: req.details,
    callbackUrl: req.callbackUrl,
    signatures: [],
    v: [],
  };
  return { description: req.description, payload };
}
