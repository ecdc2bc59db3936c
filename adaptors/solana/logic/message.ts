import { InvalidArgumentError } from '../../../src/platform/errors.js';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Address,
  type Blockhash,
  type Instruction,
  type Nonce,
} from '@solana/kit';

export type Lifetime = { kind: 'nonce'; nonce: string; nonceAccount: string } | { kind: 'blockhash'; blockhash: string; lastValidBlockHeight: number };

/**
 * Compiles a v0 message paid by the vault. With a durable nonce, kit puts `advanceNonceAccount`
 * (authority: the vault) first, as the runtime requires. Returns the message bytes (what the
 * vault signs) and the unsigned wire transaction (signature slots zeroed).
 */
export function compileMessage(vault: string, lifetime: Lifetime, instructions: Instruction[]): { message: Uint8Array; unsignedTx: Uint8Array } {
  const base = setTransactionMessageFeePayer(vault as Address, createTransactionMessage({ version: 0 }));
  const timed =
    lifetime.kind === 'nonce'
      ? setTransactionMessageLifetimeUsingDurableNonce(
          { nonce: lifetime.nonce as Nonce, nonceAccountAddress: lifetime.nonceAccount as Address, nonceAuthorityAddress: vault as Address },
          base,
        )
      : setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight) },
          base,
        );
  const tx = compileTransaction(pipe(timed, (m) => appendTransactionMessageInstructions(instructions, m)));
  const signers = Object.keys(tx.signatures);
  if (signers.length !== 1 || signers[0] !== vault)
    throw new InvalidArgumentError(`a withdrawal must be signed by the vault alone, not by ${signers.join(', ')}`);
  return { message: Uint8Array.from(tx.messageBytes), unsignedTx: Uint8Array.from(getTransactionEncoder().encode(tx)) };
}
