import { z } from 'zod';
import { HASH_ALGORITHMS, hashPreimage, type HashAlgorithm } from '../custody-simulator/keys.js';
import { hexBytes, plainDataMistake, signRequestSchema } from '../custody-simulator/sign-request.js';
import { parsePublicKey, type PublicKey } from '../../ledger/public-key.js';
import { bip32Root, derivationPathSchema, keyIndex } from './keys.js';
import type { SignPayload, Vault } from './model.js';
import { badRequest, parse } from './problem.js';

/**
 * `POST {mng}/vaults/{id}/sign`: the simulator's request shape (what the connector sends),
 * with `ledger` optional and the facts file's `derivationStrings` and `allowConcurrentKeyUsage`.
 */
export const emulatorSignSchema = signRequestSchema.extend({
  ledger: z.string().min(1).max(64).optional(),
  providerData: z.string().max(4_000_000).default(''),
  derivationStrings: z.array(derivationPathSchema).max(1_000).optional(),
  allowConcurrentKeyUsage: z.boolean().optional(),
});

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
  for (const [field, list] of [['publicKeys', req.publicKeys], ['rawTransactions', req.rawTransactions], ['derivationStrings', req.derivationStrings]] as const) {
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
    if (raw.replace(/^0x/, '') === '' || algorithm === 'IGNORE' || algorithm === 'PLAIN') return;
    if (!HASH_ALGORITHMS.includes(algorithm as HashAlgorithm)) {
      throw invalid(`ledgerHashAlgorithm '${req.ledgerHashAlgorithm ?? ''}' is needed to check rawTransactions; valid: IGNORE, PLAIN, ${HASH_ALGORITHMS.join(', ')}`, 'invalid-hash-algorithm');
    }
    const expected = (req.dataToSign[i] as string).replace(/^0x/, '').toLowerCase();
    const actual = hashPreimage(algorithm as HashAlgorithm, hexBytes(raw));
    if (actual !== expected) throw invalid(`rawTransactions[${i}] hashes to ${actual} with ${algorithm}, not to dataToSign[${i}] ${expected}`, 'digest-mismatch');
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
