import type { JsonRpcClient } from './json-rpc.js';

/** Entries kept for one block at most; a chain that stays on one block must not grow the cache without bound. */
const MAX_ENTRIES = 10_000;

/**
 * Node reads that only a new block can change (fee history, balances and nonces, a gas
 * estimate), shared by every caller while the head block stays the same. Concurrent callers
 * of one key share one request; a failed read is not kept. The head is asked with
 * `eth_blockNumber` at most once per `headMaxAgeMs` (0: on every read), and concurrent
 * callers share that request too. So N withdrawals between two blocks cost the node a
 * handful of requests instead of N of each.
 *
 * A head up to `headMaxAgeMs` old is the price: a new block (a deposit, a higher base fee)
 * is seen that much later; callers that must not act on an old view ask with `fresh`.
 */
export class BlockCache {
  private head?: { block: bigint; at: number };
  private headRequest?: Promise<bigint>;
  private block = -1n;
  private readonly entries = new Map<string, Promise<unknown>>();

  constructor(
    private readonly rpc: JsonRpcClient,
    private readonly headMaxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The head block number: the one read less than `headMaxAgeMs` ago, or a new read (always with `fresh`). */
  async headBlock(fresh = false): Promise<bigint> {
    if (!fresh && this.head && this.now() - this.head.at < this.headMaxAgeMs) return this.head.block;
    if (!this.headRequest) {
      const asked = this.now();
      this.headRequest = this.rpc.call<string>('eth_blockNumber', []).then(
        (hex) => {
          const block = BigInt(hex);
          // A node behind a balancer may answer from a replica a block behind: never step back.
          if (!this.head || block >= this.head.block) this.head = { block, at: asked };
          this.headRequest = undefined;
          return this.head.block;
        },
        (e: unknown) => {
          this.headRequest = undefined;
          throw e;
        },
      );
    }
    return this.headRequest;
  }

  /**
   * `load(block)` once per head block and `key`: later callers while the head stays the
   * same get the same answer (or share the request still running).
   */
  async atHead<T>(key: string, load: (block: bigint) => Promise<T>, fresh = false): Promise<{ block: bigint; value: T }> {
    const block = await this.headBlock(fresh);
    if (block > this.block || this.entries.size >= MAX_ENTRIES) {
      this.entries.clear();
      this.block = block;
    }
    if (block < this.block) return { block, value: await load(block) };
    let entry = this.entries.get(key) as Promise<T> | undefined;
    if (!entry) {
      entry = load(block);
      this.entries.set(key, entry);
      entry.catch(() => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      });
    }
    return { block, value: await entry };
  }
}
