import { decompileTransactionMessage, getCompiledTransactionMessageDecoder, getTransactionDecoder, type Instruction } from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, parseSetComputeUnitLimitInstruction, parseSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { parseTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, parseTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { Redis } from 'ioredis';
import pino from 'pino';
import type { LedgerAdaptor, PublicKey, SignedTx, UnsignedWithdrawal, VaultSource } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { solanaFamily } from './index.js';
import type { LocalSolanaNode } from './local-node/index.js';
import { LAMPORTS_PER_SIGNATURE } from './logic/fees.js';
import { nonceAccountAddress } from './logic/nonce.js';

/** A key that signs like the custody service (test/conformance/signers.ts makes them). */
interface TestKey {
  publicKey: PublicKey;
  keyId: string;
  sign(dataHex: string): { signature: string; v: number };
}

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

/** The Solana adaptor of `solanadev` on a local node, with the node's USDC. */
export function localAdaptor(node: LocalSolanaNode, redis: Redis, prefix: string): LedgerAdaptor {
  return solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
    logger: pino({ level: 'silent' }),
    fetch,
    reservations: new Reservations(redis, prefix),
  });
}

/** A vault of one ed25519 key, as the registry hands it to craft. */
export function vaultOf(adaptor: LedgerAdaptor, signer: TestKey, vaultId = 'v'): VaultSource {
  const address = adaptor.addressFromPublicKey(signer.publicKey);
  return { vaultId, addresses: [{ address, publicKey: signer.publicKey, keyId: signer.keyId }], changeAddress: address };
}

/** Signs the one payload as the custody service would and combines it: the signed transaction. */
export function signWith(adaptor: LedgerAdaptor, signer: TestKey, unsigned: UnsignedWithdrawal): SignedTx {
  const p = unsigned.payloads[0]!;
  const sig = signer.sign(p.digest);
  const [signed] = adaptor.combine(unsigned, [{ payloadIndex: 0, ...verifySignature(p.digest, sig.signature, sig.v, signer.publicKey) }]);
  return signed!;
}

/**
 * Creates the vault's durable nonce account through the adaptor itself (craft, sign, combine,
 * broadcast), paid by exactly what it costs, so the vault holds nothing afterwards.
 */
export async function setUpNonce(
  adaptor: LedgerAdaptor,
  signer: TestKey,
  fundSol: (address: string, lamports: bigint) => Promise<unknown>,
  rent: bigint,
): Promise<void> {
  const source = vaultOf(adaptor, signer, 'setup');
  const address = source.changeAddress;
  await fundSol(address, rent + LAMPORTS_PER_SIGNATURE);
  const unsigned = await adaptor.craft(source, {
    reference: `setup-${address}`,
    recipientAddress: await nonceAccountAddress(address),
    asset: adaptor.nativeAsset,
    amount: rent,
    fee: 'LOW',
  });
  if (unsigned.fee !== LAMPORTS_PER_SIGNATURE) throw new Error(`unexpected setup fee ${unsigned.fee}`);
  await adaptor.broadcast(signWith(adaptor, signer, unsigned));
}
