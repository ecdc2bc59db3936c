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
 * Block production of an anvil started with `--block-time` (and `--mixed-mining`): paused with
 * `evm_setIntervalMining 0` (sent transactions wait in its pool), resumed with a block every
 * `blockTime` seconds (anvil cannot be put back into mixed mining: after a pause a transaction
 * waits for the next timed block, not mined on arrival), blocks mined with `anvil_mine`, the
 * last blocks reorganised with `anvil_reorg` (new blocks without their transactions).
 */
export function anvilMining(url: string, blockTime: number): LocalNodeMining {
  let paused = false;
  return {
    pause: async () => {
      await rpc(url, 'evm_setIntervalMining', [0]);
      paused = true;
    },
    resume: async () => {
      await rpc(url, 'evm_setIntervalMining', [blockTime]);
      paused = false;
    },
    mine: async (blocks) => void (await rpc(url, 'anvil_mine', [`0x${blocks.toString(16)}`])),
    reorg: async (depth) => void (await rpc(url, 'anvil_reorg', [depth, []])),
    state: async () => ({ paused, height: Number(await rpc<string>(url, 'eth_blockNumber')) }),
  };
}
