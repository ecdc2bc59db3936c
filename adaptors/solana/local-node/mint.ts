import { lamports, type Address, type Transaction } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { LiteSVM } from 'litesvm';
import { newLocalKey, signedTransaction, type LocalKey } from './keys.js';
import type { SvmRpcFacade } from './rpc-facade.js';

const AUTHORITY_LAMPORTS = 1_000_000_000_000n;
/** What the faucet key starts with, from LiteSVM's own airdrop account (a million SOL): 100,000 SOL. */
const FAUCET_LAMPORTS = 100_000_000_000_000n;

/**
 * The local node's demo SPL token: a real mint created by a real transaction, whose
 * authority key the node holds, so funding an address with it is a real mintTo; and its SOL
 * faucet, a key the node holds that pays with a real System transfer. Their transactions run
 * through the facade, so they are in its blocks as any other.
 */
export class LocalMint {
  private constructor(
    private readonly svm: LiteSVM,
    private readonly facade: SvmRpcFacade,
    private readonly authority: LocalKey,
    private readonly faucet: LocalKey,
    readonly address: Address,
  ) {}

  static create(svm: LiteSVM, facade: SvmRpcFacade, decimals: number): LocalMint {
    const authority = newLocalKey();
    const faucet = newLocalKey();
    const mint = newLocalKey();
    // The node's genesis balances: LiteSVM's airdrops, in no block.
    svm.airdrop(authority.address, lamports(AUTHORITY_LAMPORTS));
    svm.airdrop(faucet.address, lamports(FAUCET_LAMPORTS));
    const space = BigInt(getMintSize());
    run(
      facade,
      signedTransaction([authority, mint], svm.latestBlockhash(), [
        getCreateAccountInstruction({
          payer: authority.signer,
          newAccount: mint.signer,
          lamports: svm.minimumBalanceForRentExemption(space),
          space,
          programAddress: TOKEN_PROGRAM_ADDRESS,
        }),
        getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: authority.address }),
      ]),
    );
    return new LocalMint(svm, facade, authority, faucet, mint.address);
  }

  /** Lamports from the faucet key: a System transfer it signs and pays for. */
  airdrop(owner: string, units: bigint): Promise<string> {
    try {
      return Promise.resolve(
        run(
          this.facade,
          signedTransaction([this.faucet], this.svm.latestBlockhash(), [
            getTransferSolInstruction({ source: this.faucet.signer, destination: owner as Address, amount: units }),
          ]),
        ),
      );
    } catch (e) {
      return Promise.reject(new Error(`airdrop to ${owner} failed: ${(e as Error).message}`));
    }
  }

  /** Mints `units` into the owner's associated token account, creating it if missing. */
  async mintTo(owner: string, units: bigint): Promise<string> {
    const [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint: this.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    return run(
      this.facade,
      signedTransaction([this.authority], this.svm.latestBlockhash(), [
        getCreateAssociatedTokenIdempotentInstruction({ payer: this.authority.signer, ata, owner: owner as Address, mint: this.address }),
        getMintToInstruction({ mint: this.address, token: ata, mintAuthority: this.authority.signer, amount: units }),
      ]),
    );
  }
}

/** Runs the node's transaction in the next block; a failure is thrown (a failed one that was charged its fee stays in its block). */
function run(facade: SvmRpcFacade, tx: Transaction): string {
  const ran = facade.execute(tx);
  if (ran.err !== null) throw new Error(`local node transaction failed: ${ran.result.toString()}`);
  return ran.signature;
}
