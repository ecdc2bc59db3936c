import { getBase58Decoder, getCompiledTransactionMessageDecoder, type Address } from '@solana/kit';
import type { LiteSVM } from 'litesvm';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/** The System program's AdvanceNonceAccount instruction (u32 little-endian 4). */
const ADVANCE_NONCE = 4;
/** A blockhash is accepted for 150 blocks after the block that produced it (Agave's MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALID_SLOTS = 150n;

/**
 * The runtime's transaction-age rule, which the facade applies because LiteSVM accepts only
 * its very latest blockhash (every executed transaction starts a new slot, so a transaction
 * crafted a moment earlier would be refused). A transaction is valid if its lifetime token is
 * a blockhash of the last 150 blocks (block heights: skipped slots do not count), or (durable nonce) if its first instruction advances a
 * nonce account whose stored nonce is that token. LiteSVM's own blockhash check is off;
 * everything else (signatures, programs, the nonce advance itself) it still executes.
 */
export class RecentBlockhashes {
  private readonly issued = new Map<string, bigint>();

  constructor(private readonly svm: LiteSVM) {}

  /** Notes the current blockhash with its block height; called at start and after each new block. */
  record(height: bigint): void {
    this.issued.set(this.svm.latestBlockhash(), height);
    for (const [hash, at] of this.issued) if (height - at > BLOCKHASH_VALID_SLOTS) this.issued.delete(hash);
  }

  /** Whether a transaction with this blockhash is accepted at block height `height` (isBlockhashValid). */
  isValid(blockhash: string, height: bigint): boolean {
    const at = this.issued.get(blockhash);
    return at !== undefined && height - at <= BLOCKHASH_VALID_SLOTS;
  }

  /** Why the message's lifetime is not acceptable at block height `height`, or undefined when it is. */
  refusal(messageBytes: Uint8Array, height: bigint): string | undefined {
    const message = getCompiledTransactionMessageDecoder().decode(messageBytes);
    const token = message.lifetimeToken;
    if (this.isValid(token, height)) return undefined;
    // Legacy and v0 messages list compiled instructions; the adaptor sends v0.
    if (!('instructions' in message) || !('staticAccounts' in message)) return 'BlockhashNotFound';
    const first = message.instructions[0];
    const accounts = message.staticAccounts;
    const data = first?.data;
    const isAdvance =
      first !== undefined &&
      accounts[first.programAddressIndex] === SYSTEM_PROGRAM &&
      data !== undefined &&
      data.length >= 4 &&
      Buffer.from(data).readUInt32LE(0) === ADVANCE_NONCE;
    if (!isAdvance) return 'BlockhashNotFound';
    const nonceAccount = accounts[first.accountIndices?.[0] ?? -1];
    if (!nonceAccount) return 'BlockhashNotFound';
    const acc = this.svm.getAccount(nonceAccount as Address);
    if (!acc.exists || acc.data.length !== 80) return 'BlockhashNotFound';
    const stored = getBase58Decoder().decode(acc.data.subarray(40, 72));
    // The runtime's name for a durable-nonce transaction whose nonce has moved on.
    return stored === token ? undefined : 'BlockhashNotFound (durable nonce does not match the nonce account)';
  }
}
