import {
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
} from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, parseSetComputeUnitLimitInstruction, parseSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { parseTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, parseTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { SignedTx } from '../../src/ledger/adaptor.js';

/** What a signed Solana withdrawal does, read back from its wire bytes with kit's decoders (tests only). */
export interface DecodedSolanaTx {
  feePayer: string;
  /** Instruction program ids in order (the first must be the System program: advanceNonce). */
  programs: string[];
  solTransfer?: { from: string; to: string; lamports: bigint };
  tokenTransfer?: { authority: string; source: string; destination: string; mint: string; amount: bigint };
  createsTokenAccount: boolean;
  computeUnitLimit?: number;
  microLamports: bigint;
}

type Parsable = Parameters<typeof parseTransferSolInstruction>[0];

export function decodeSolanaTx(signed: SignedTx): DecodedSolanaTx {
  const tx = getTransactionDecoder().decode(Buffer.from(signed.serialized, 'hex'));
  const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes));
  const out: DecodedSolanaTx = { feePayer: message.feePayer.address, programs: [], createsTokenAccount: false, microLamports: 0n };
  for (const ix of message.instructions as Instruction[]) {
    out.programs.push(ix.programAddress);
    const p = ix as unknown as Parsable;
    const tag = ix.data?.[0];
    if (ix.programAddress === SYSTEM_PROGRAM_ADDRESS && tag === 2) {
      const t = parseTransferSolInstruction(p);
      out.solTransfer = { from: t.accounts.source.address, to: t.accounts.destination.address, lamports: t.data.amount };
    } else if (ix.programAddress === TOKEN_PROGRAM_ADDRESS && tag === 12) {
      const t = parseTransferCheckedInstruction(p);
      out.tokenTransfer = {
        authority: t.accounts.authority.address,
        source: t.accounts.source.address,
        destination: t.accounts.destination.address,
        mint: t.accounts.mint.address,
        amount: t.data.amount,
      };
    } else if (ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS) {
      out.createsTokenAccount = true;
    } else if (ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS && tag === 2) {
      out.computeUnitLimit = parseSetComputeUnitLimitInstruction(p).data.units;
    } else if (ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS && tag === 3) {
      out.microLamports = parseSetComputeUnitPriceInstruction(p).data.microLamports;
    }
  }
  return out;
}
