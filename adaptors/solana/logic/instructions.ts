import { createNoopSigner, type Address, type Instruction } from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  getAllocateWithSeedInstruction,
  getInitializeNonceAccountInstruction,
  getTransferSolInstruction,
  SYSTEM_PROGRAM_ADDRESS,
} from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { NONCE_ACCOUNT_SPACE } from './accounts.js';
import { NONCE_SEED } from './nonce.js';

/**
 * Compute-unit limits per kind of withdrawal: measured costs (System ~150 CU an instruction,
 * compute budget ~150, TransferChecked ~6,200, creating an associated token account ~25,000)
 * with headroom; the priority fee is paid on the limit, not on what is used.
 */
export const COMPUTE_UNITS = { sol: 2_000, token: 12_000, tokenWithAccount: 50_000, setup: 2_000 } as const;

export function computeBudget(limit: number, microLamports: bigint): Instruction[] {
  const out: Instruction[] = [getSetComputeUnitLimitInstruction({ units: limit })];
  if (microLamports > 0n) out.push(getSetComputeUnitPriceInstruction({ microLamports }));
  return out;
}

export function solTransfer(vault: string, to: string, lamports: bigint): Instruction {
  return getTransferSolInstruction({ source: createNoopSigner(vault as Address), destination: to as Address, amount: lamports });
}

/** TransferChecked from the vault's token account, after creating the recipient's associated token account when `createFor` names its owner. */
export function tokenTransfer(p: {
  vault: string;
  mint: string;
  decimals: number;
  from: string;
  to: string;
  amount: bigint;
  createFor?: string;
}): Instruction[] {
  const vault = createNoopSigner(p.vault as Address);
  const out: Instruction[] = [];
  if (p.createFor) {
    out.push(getCreateAssociatedTokenIdempotentInstruction({ payer: vault, ata: p.to as Address, owner: p.createFor as Address, mint: p.mint as Address }));
  }
  out.push(
    getTransferCheckedInstruction({
      source: p.from as Address,
      mint: p.mint as Address,
      destination: p.to as Address,
      authority: vault,
      amount: p.amount,
      decimals: p.decimals,
    }),
  );
  return out;
}

/**
 * Makes the vault's seed address its nonce account with the vault as authority: pays it
 * `lamports` (creating it as a plain System account when nothing is there), gives it the nonce
 * account's size (allocateWithSeed, which the vault signs as the base; the owner stays the
 * System program), and initializes it. createAccountWithSeed would refuse an address that
 * already holds lamports, so anyone could block the setup by sending SOL there first.
 */
export function nonceSetup(vault: string, nonceAccount: string, lamports: bigint): Instruction[] {
  const signer = createNoopSigner(vault as Address);
  return [
    getTransferSolInstruction({ source: signer, destination: nonceAccount as Address, amount: lamports }),
    getAllocateWithSeedInstruction({
      newAccount: nonceAccount as Address,
      baseAccount: signer,
      base: vault as Address,
      seed: NONCE_SEED,
      space: NONCE_ACCOUNT_SPACE,
      programAddress: SYSTEM_PROGRAM_ADDRESS,
    }),
    getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount as Address, nonceAuthority: vault as Address }),
  ];
}
