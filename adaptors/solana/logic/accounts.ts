import { getBase64Encoder, getBase58Decoder, type Address } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { UpstreamError } from '../../../src/errors.js';
import type { RpcAccount } from '../network/rpc.js';

/** Size of an SPL token account and of a system nonce account: what their rent-exempt minimum is for. */
export const TOKEN_ACCOUNT_SPACE = 165;
export const NONCE_ACCOUNT_SPACE = 80;

export function accountData(acc: RpcAccount): Uint8Array {
  return Uint8Array.from(getBase64Encoder().encode(acc.data[0]));
}

/** The owner's associated token account for a mint (classic SPL Token program). */
export async function associatedTokenAccount(owner: string, mint: string): Promise<string> {
  const [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint: mint as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/** Token units in an SPL token account (amount is the u64 at offset 64); 0 when it does not exist. */
export function tokenAmount(acc: RpcAccount | null, mint: string, where: string): bigint {
  if (!acc) return 0n;
  const data = accountData(acc);
  if (acc.owner !== TOKEN_PROGRAM_ADDRESS || data.length < TOKEN_ACCOUNT_SPACE) throw new UpstreamError(`${where} is not an SPL token account`, false);
  const accountMint = getBase58Decoder().decode(data.subarray(0, 32));
  if (accountMint !== mint) throw new UpstreamError(`${where} holds mint ${accountMint}, not ${mint}`, false);
  return Buffer.from(data.subarray(64, 72)).readBigUInt64LE();
}

export interface NonceAccountState {
  authority: string;
  /** The stored durable nonce: the blockhash a transaction using this account must carry. */
  nonce: string;
}

/** Reads an initialized system nonce account (version u32, state u32, authority, nonce, fee). */
export function readNonceAccount(acc: RpcAccount, where: string): NonceAccountState {
  const data = accountData(acc);
  if (acc.owner !== SYSTEM_PROGRAM_ADDRESS || data.length !== NONCE_ACCOUNT_SPACE) throw new UpstreamError(`${where} is not a nonce account`, false);
  if (Buffer.from(data).readUInt32LE(4) !== 1) throw new UpstreamError(`nonce account ${where} is not initialized`, false);
  const b58 = getBase58Decoder();
  return { authority: b58.decode(data.subarray(8, 40)), nonce: b58.decode(data.subarray(40, 72)) };
}
