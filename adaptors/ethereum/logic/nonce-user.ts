import { UnavailableError } from '../../../src/platform/errors.js';
import type { EthContext } from '../context.js';

/** How many blocks back from the head the transaction that used a nonce is looked for. */
export const NONCE_SEARCH_BLOCKS = 128;
/** Blocks asked for in one JSON-RPC batch (with their transactions, each can be large). */
const BLOCKS_PER_REQUEST = 4;

export type NonceUse = { kind: 'used'; hash: string; block: number } | { kind: 'unproven'; why: string };

const hex = (n: number): string => `0x${n.toString(16)}`;

interface BlockWithTxs {
  transactions: { hash: string; from: string; nonce: string }[];
}

/**
 * Which transaction of `from` used nonce `nonce`, found in the blocks themselves (newest first,
 * NONCE_SEARCH_BLOCKS deep): the transaction of `from` with that nonce in a block is proof of
 * who used it, whichever node answered. "Not found by hash" from one node and "nonce passed"
 * from another prove nothing together: behind a load balancer the first may lag behind the
 * block that mined our own transaction. Block bodies need no historical state, so a pruned
 * node answers too. `unproven`: no such transaction in the blocks searched (a pooled one holds
 * the nonce, the use is older, or the node that answered lags); look again.
 */
export async function nonceUse(ctx: EthContext, from: string, nonce: bigint): Promise<NonceUse> {
  const head = Number(BigInt(await ctx.rpc.call<string>('eth_blockNumber', [])));
  const oldest = Math.max(0, head - NONCE_SEARCH_BLOCKS + 1);
  const sender = from.toLowerCase();
  for (let top = head; top >= oldest; top -= BLOCKS_PER_REQUEST) {
    const numbers = Array.from({ length: Math.min(BLOCKS_PER_REQUEST, top - oldest + 1) }, (_, i) => top - i);
    const blocks = await ctx.rpc.batch<BlockWithTxs | null>(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), true] })));
    for (const [i, block] of blocks.entries()) {
      const user = block?.transactions.find((t) => t.from.toLowerCase() === sender && BigInt(t.nonce) === nonce);
      if (user) return { kind: 'used', hash: user.hash, block: numbers[i] as number };
    }
  }
  return { kind: 'unproven', why: `no transaction of ${from} with nonce ${nonce} in blocks ${oldest}..${head}` };
}

/** `unproven` as the retryable error of a send that cannot tell yet whether the nonce's user is ours. */
export function unprovenNonce(ctx: EthContext, txid: string, use: Extract<NonceUse, { kind: 'unproven' }>): UnavailableError {
  return new UnavailableError(`${ctx.ledgerId}: whether ${txid} holds its nonce is not known yet: ${use.why}`, undefined, 'ERR_NODE_UNAVAILABLE');
}
