import type { HashAlgorithm, Json, SigningPayload, UnsignedWithdrawal, VaultAddress } from './adaptor.js';
import { publicKeyHex } from './public-key.js';

/**
 * The unsigned withdrawal of an account ledger (Ethereum, Stellar, Solana): one transaction,
 * signed once by one vault key, so one signing payload at transaction 0, input 0.
 */
export type SinglePayload = {
  /** Hex of the unsigned transaction as clients see it in `appData.txs`. */
  serialized: string;
  /** The key that signs: a vault address, or the payload of the attempt being replaced. */
  signer: VaultAddress | Pick<SigningPayload, 'keyId' | 'publicKey'>;
  /** Hex of what is hashed (or, with `PLAIN`, signed as it is). */
  preimage: string;
  /** Most the withdrawal pays, base units of the native asset. */
  fee: bigint;
  /** The family's encoded state (its `StateCodec.encode`). */
  state: Json;
  expiresAt?: number;
} & (
  | { hashAlgorithm: Exclude<HashAlgorithm, 'PLAIN'>; /** Hex digest of `preimage`. */ digest: string }
  // ed25519 signs the data itself: the payload's digest is the preimage.
  | { hashAlgorithm: 'PLAIN'; digest?: never }
);

export function singlePayloadWithdrawal(p: SinglePayload): UnsignedWithdrawal {
  const digest = p.hashAlgorithm === 'PLAIN' ? p.preimage : p.digest;
  const publicKey = typeof p.signer.publicKey === 'string' ? p.signer.publicKey : publicKeyHex(p.signer.publicKey);
  return {
    txs: [{ serialized: p.serialized }],
    payloads: [{ digest, keyId: p.signer.keyId, publicKey, preimage: p.preimage, hashAlgorithm: p.hashAlgorithm, txIndex: 0, inputIndex: 0 }],
    fee: p.fee,
    state: p.state,
    ...(p.expiresAt === undefined ? {} : { expiresAt: p.expiresAt }),
  };
}
