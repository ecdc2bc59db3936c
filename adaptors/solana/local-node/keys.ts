import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getAddressDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
  type SignatureBytes,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';

/** An ed25519 key the local node holds (mint authority, faucet payer), signing with node:crypto. */
export interface LocalKey {
  address: Address;
  signer: TransactionSigner;
  private: KeyObject;
}

export function newLocalKey(): LocalKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as { x: string };
  const address = getAddressDecoder().decode(Buffer.from(jwk.x, 'base64url'));
  return { address, signer: createNoopSigner(address), private: privateKey };
}

/** Builds, compiles and signs a transaction with the given keys (the first pays). */
export function signedTransaction(keys: LocalKey[], blockhash: string, instructions: Instruction[]): Transaction {
  const payer = keys[0];
  if (!payer) throw new Error('a transaction needs a fee payer');
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(payer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const tx = compileTransaction(message);
  const signatures = { ...tx.signatures };
  for (const k of keys) {
    if (!(k.address in signatures)) throw new Error(`${k.address} is not a signer of this transaction`);
    signatures[k.address] = Uint8Array.from(sign(null, Uint8Array.from(tx.messageBytes), k.private)) as SignatureBytes;
  }
  return { ...tx, signatures };
}
