import { getBase64Encoder, getBase58Decoder, type Address } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { UpstreamError } from '../../../src/platform/errors.js';
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

export interface TokenAccountState {
  mint: string;
  /** The wallet that may move the tokens. */
  owner: string;
  amount: bigint;
}

/**
 * An initialized classic SPL token account (mint, owner, amount u64, ..., state u8 at 108);
 * undefined for any other account, mints and multisigs of the Token program included.
 */
export function readTokenAccount(acc: RpcAccount): TokenAccountState | undefined {
  const data = accountData(acc);
  if (acc.owner !== TOKEN_PROGRAM_ADDRESS || data.length !== TOKEN_ACCOUNT_SPACE || data[108] === 0) return undefined;
  const b58 = getBase58Decoder();
  return { mint: b58.decode(data.subarray(0, 32)), owner: b58.decode(data.subarray(32, 64)), amount: Buffer.from(data.subarray(64, 72)).readBigUInt64LE() };
}

/** Token units in an SPL token account; 0 when it does not exist. */
export function tokenAmount(acc: RpcAccount | null, mint: string, where: string): bigint {
  if (!acc) return 0n;
  const account = readTokenAccount(acc);
  if (!account) throw new UpstreamError(`${where} is not an SPL token account`, false);
  if (account.mint !== mint) throw new UpstreamError(`${where} holds mint ${account.mint}, not ${mint}`, false);
  return account.amount;
}

/** A plain System account, as a key's address is once it holds SOL: no data, nobody's state. */
export function isWalletAccount(acc: RpcAccount): boolean {
  return acc.owner === SYSTEM_PROGRAM_ADDRESS && accountData(acc).length === 0;
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
