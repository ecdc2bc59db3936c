import { createPrivateKey, randomBytes, sign as edSign } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { toCustodyKeyId, type PublicKey } from '../../src/ledger/public-key.js';
import type { TestSigner } from './conformance.js';

/** A secp256k1 signer that answers like the custody service: r||s hex upper case and v 0/1. */
export function secp256k1Signer(privateKey: Uint8Array = randomBytes(32)): TestSigner & { privateKey: Uint8Array } {
  const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(ecc.pointFromScalar(privateKey, true) as Uint8Array) };
  return {
    privateKey,
    publicKey,
    keyId: toCustodyKeyId(publicKey),
    sign: (digestHex) => {
      const { signature, recoveryId } = ecc.signRecoverable(Buffer.from(digestHex, 'hex'), privateKey);
      return { signature: Buffer.from(signature).toString('hex').toUpperCase(), v: recoveryId };
    },
  };
}

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An ed25519 signer over the digest bytes, keyed as the custody service reports ed25519 keys (raw hex). */
export function ed25519Signer(seed: Uint8Array = randomBytes(32)): TestSigner {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKeyRaw(key);
  const publicKey: PublicKey = { scheme: 'ed25519', bytes: Uint8Array.from(spki) };
  return {
    publicKey,
    keyId: Buffer.from(spki).toString('hex').toUpperCase(),
    sign: (digestHex) => ({ signature: edSign(null, Buffer.from(digestHex, 'hex'), key).toString('hex').toUpperCase(), v: 0 }),
  };
}

function createPublicKeyRaw(key: ReturnType<typeof createPrivateKey>): Buffer {
  const jwk = key.export({ format: 'jwk' }) as { x: string };
  return Buffer.from(jwk.x, 'base64url');
}
