/**
 * An operation waiting for one ECDSA signature over a digest by a fixed test key, stored as the
 * withdrawal route would, and the body of the custody callback that brings it: the callback
 * receiver's tests need no ledger node for that.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { toCustodyKeyId, type PublicKey } from '../../src/ledger/public-key.js';
import { newOperation, type Operation } from '../../src/withdrawals/model/operation.js';

const PRIVATE = randomBytes(32);
const KEY: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(ecc.pointFromScalar(PRIVATE, true) as Uint8Array) };

/** An `ethdev` operation waiting for KEY's signature over `digest` (hex). */
export function awaitingSignature(digest: string, description: string): Operation {
  return newOperation({
    id: randomUUID(),
    vaultId: 'v1',
    ledgerId: 'ethdev',
    request: { recipientAddress: '0x00000000000000000000000000000000000000B0', asset: 'ETH', amount: '1', description, fee: 'MEDIUM' },
    recipientAddress: '0x00000000000000000000000000000000000000B0',
    unsigned: {
      txs: [{ serialized: '00' }],
      payloads: [
        { digest, keyId: toCustodyKeyId(KEY), publicKey: Buffer.from(KEY.bytes).toString('hex'), hashAlgorithm: 'SHA3_256', txIndex: 0, inputIndex: 0 },
      ],
      fee: '0',
      state: {},
    },
  });
}

/** The callback body of a signature over `digest` by `signer` (by default the key the operation waits for). */
export function callbackBody(digest: Buffer, signer: Uint8Array = PRIVATE) {
  const { signature, recoveryId } = ecc.signRecoverable(digest, signer);
  return {
    publicKeys: [toCustodyKeyId(KEY)],
    providerData: '',
    dataToSign: [digest.toString('hex')],
    signatures: [Buffer.from(signature).toString('hex')],
    v: [recoveryId],
  };
}
