import { getBase58Decoder, lamports, type Address } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { FailedTransactionMetadata, type LiteSVM } from 'litesvm';
import { newLocalKey, signedTransaction, type LocalKey } from './keys.js';
import type { SvmRpcFacade } from './rpc-facade.js';

const FAUCET_LAMPORTS = 1_000_000_000_000n;

/**
 * The local node's demo SPL token: a real mint created by a real transaction, whose
 * authority key the node holds, so funding an address with it is a real mintTo.
 */
export class LocalMint {
  private constructor(
    private readonly svm: LiteSVM,
    private readonly facade: SvmRpcFacade,
    private readonly authority: LocalKey,
    readonly address: Address,
  ) {}

  static create(svm: LiteSVM, facade: SvmRpcFacade, decimals: number): LocalMint {
    const authority = newLocalKey();
    const mint = newLocalKey();
    svm.airdrop(authority.address, lamports(FAUCET_LAMPORTS));
    const space = BigInt(getMintSize());
    run(
      svm,
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
    facade.nextSlot();
    return new LocalMint(svm, facade, authority, mint.address);
  }

  /** Lamports from LiteSVM's airdrop (its built-in faucet account). */
  airdrop(owner: string, units: bigint): Promise<string> {
    const result = this.svm.airdrop(owner as Address, lamports(units));
    if (!result || result instanceof FailedTransactionMetadata) throw new Error(`airdrop to ${owner} failed: ${result?.toString() ?? 'no result'}`);
    this.facade.nextSlot();
    return Promise.resolve(getBase58Decoder().decode(result.signature()));
  }

  /** Mints `units` into the owner's associated token account, creating it if missing. */
  async mintTo(owner: string, units: bigint): Promise<string> {
    const [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint: this.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const signature = run(
      this.svm,
      signedTransaction([this.authority], this.svm.latestBlockhash(), [
        getCreateAssociatedTokenIdempotentInstruction({ payer: this.authority.signer, ata, owner: owner as Address, mint: this.address }),
        getMintToInstruction({ mint: this.address, token: ata, mintAuthority: this.authority.signer, amount: units }),
      ]),
    );
    this.facade.nextSlot();
    return signature;
  }
}

function run(svm: LiteSVM, tx: Parameters<LiteSVM['sendTransaction']>[0]): string {
  const result = svm.sendTransaction(tx);
  if (result instanceof FailedTransactionMetadata) throw new Error(`local node transaction failed: ${result.toString()}`);
  return getBase58Decoder().decode(result.signature());
}
