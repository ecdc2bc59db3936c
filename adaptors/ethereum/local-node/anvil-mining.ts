import { everyInterval, type Every } from '../../../src/dev/block-timer.js';
import type { LocalNodeMining } from '../../../src/ledger/adaptor.js';

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`anvil ${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * Block production of an anvil started without `--block-time`, so automining: a block for each
 * transaction, and a transaction ahead of its nonce waits in the pool until the gap fills. A
 * block every `intervalMs` is mined from here (`evm_mine` on the timer `every`), so the chain
 * moves without traffic too. anvil's own `--block-time` would do that inside the node, where
 * nothing tells the moment it would have mined (`anvil_getIntervalMining` answers null): with
 * the timer here a test plays the ticks and sees that a paused node mines nothing at one.
 * Paused: automining off (`evm_setAutomine`; sent transactions wait in the pool) and the timer
 * stopped; resumed: both again. Blocks mined on demand with `anvil_mine`; the last blocks
 * reorganised with `anvil_reorg` (new blocks without their transactions).
 */
export function anvilMining(url: string, o: { intervalMs: number; every?: Every }): LocalNodeMining & { stop(): void } {
  const every = o.every ?? everyInterval;
  // The block a tick is mining: a pause answers once it is in, so no block follows the answer.
  let ticking: Promise<unknown> = Promise.resolve();
  const tick = () => (ticking = rpc(url, 'evm_mine').catch(() => undefined));
  let stopTimer: (() => void) | undefined = every(tick, o.intervalMs);
  return {
    pause: async () => {
      stopTimer?.();
      stopTimer = undefined;
      await ticking;
      await rpc(url, 'evm_setAutomine', [false]);
    },
    resume: async () => {
      await rpc(url, 'evm_setAutomine', [true]);
      stopTimer ??= every(tick, o.intervalMs);
    },
    mine: async (blocks) => void (await rpc(url, 'anvil_mine', [`0x${blocks.toString(16)}`])),
    reorg: async (depth) => void (await rpc(url, 'anvil_reorg', [depth, []])),
    state: async () => ({ paused: stopTimer === undefined, height: Number(await rpc<string>(url, 'eth_blockNumber')) }),
    stop: () => {
      stopTimer?.();
      stopTimer = undefined;
    },
  };
}
