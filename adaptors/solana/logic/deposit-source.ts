import type { Address } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import type { ChainBlock, DepositSource } from '../../../src/ledger/deposit-source.js';
import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import type { SolanaContext } from '../context.js';
import { BlockNotAvailableError, SlotSkippedError } from '../network/errors.js';
import { blockTransfers } from './block-transfers.js';

/** How far back a skipped slot's parent is looked for, widening: a leader's four slots, then long outages, then Agave's getBlocks limit. */
const PARENT_SPANS = [64, 4_096, 500_000];

/**
 * What arrives on a Solana ledger, slot by slot: `getBlock` (json, full transactions, v0 read,
 * no rewards) at the ledger's commitment, its transfers read from balances (block-transfers.ts).
 *
 * Heights are slots. A skipped slot (no block: its leader produced none) is a block without
 * transfers whose hash and parent hash are both the blockhash of the latest block before it:
 * the block after a run of skipped slots names that block as its parent (`previousBlockhash`
 * of `parentSlot`), so every height builds on the one below and the scanner's parent check
 * holds across the gap. When a fork changes which slots have blocks, the hashes carried
 * through the gap change with it and the check sees it. A node that lacks a block (started
 * from a later snapshot) answers as for a skipped slot, but then lacks the parent it is looked
 * up for as well: the scan waits instead of passing over it.
 */
export function solanaDepositSource(ctx: SolanaContext): DepositSource {
  const { rpc } = ctx;
  const commitment = ctx.options.commitment;
  const tokens = new Map(ctx.options.tokens.map((t) => [t.mint, t.symbol]));
  const associatedAccount = async (owner: string, mint: string, tokenProgram: string) =>
    (await findAssociatedTokenPda({ owner: owner as Address, mint: mint as Address, tokenProgram: tokenProgram as Address }))[0] as string;

  const header = async (slot: number) => {
    const b = await rpc.getBlock(slot, commitment, 'none');
    if (!b) throw new UnavailableError(`Solana RPC getBlock: no block at slot ${slot} (${commitment}) though the node names it`);
    return b;
  };

  /** The block a skipped slot stands for: the latest one below it, by its hash. */
  const skipped = async (slot: number): Promise<ChainBlock> => {
    for (const span of PARENT_SPANS) {
      const start = Math.max(0, slot - span);
      const slots = await rpc.getBlocks(start, slot - 1, commitment);
      const parent = slots.at(-1);
      if (parent !== undefined) {
        const b = await header(parent);
        return { height: slot, hash: b.blockhash, parentHash: b.blockhash, time: (b.blockTime ?? 0) * 1000, transfers: [] };
      }
      if (start === 0) break;
    }
    throw new UpstreamError(`Solana RPC: slot ${slot} has no block and the node has none before it`, true);
  };

  return {
    tip: async () => {
      const slot = await rpc.getSlot(commitment);
      return { height: slot, hash: (await header(slot)).blockhash };
    },
    block: async (slot, watching) => {
      let b;
      try {
        b = await rpc.getBlock(slot, commitment, 'full');
      } catch (e) {
        if (e instanceof BlockNotAvailableError) return undefined;
        if (e instanceof SlotSkippedError) return skipped(slot);
        throw e;
      }
      if (!b) return undefined;
      return {
        height: slot,
        hash: b.blockhash,
        parentHash: b.previousBlockhash,
        time: (b.blockTime ?? 0) * 1000,
        transfers: await blockTransfers(b, { nativeSymbol: ctx.assets[0]?.symbol ?? 'SOL', tokens, associatedAccount, ...(watching ? { watching } : {}) }),
      };
    },
  };
}
