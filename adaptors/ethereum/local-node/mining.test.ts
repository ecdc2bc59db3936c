import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { handTimer } from '../../../test/helpers/hand-timer.js';
import { startEthereumLocalNode } from './hook.js';

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: T }).result;
}

/** The ethdev node's mining controls (POST /sandbox/mining) on a real anvil. */
describe('the ethdev development node: pause, mine, reorganise, resume', { timeout: 60_000 }, () => {
  let node: LocalLedgerNode;
  let url: string;
  const timer = handTimer();
  beforeAll(async () => {
    node = await startEthereumLocalNode({ every: timer.every });
    url = node.options.rpcUrl as string;
  }, 60_000);
  afterAll(async () => node?.stop());

  it('mines at each tick of its block timer, none while paused; holds a sent transaction; mines on demand; a reorg takes it out; resuming mines again', async () => {
    const mining = node.mining!;
    // A block every 2 s: each tick of the timer mines one.
    expect(timer.intervals()).toEqual([2000]);
    const running = await mining.state();
    await timer.tick();
    expect((await mining.state()).height).toBe(running.height + 1);

    await mining.pause!();
    const paused = await mining.state();
    expect(paused.paused).toBe(true);
    const from = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from, to: '0x00000000000000000000000000000000000000A1', value: '0x1' }]);
    // No block at arrival: the node says so itself (a block mined at arrival would come after the answer).
    expect(await rpc(url, 'anvil_getAutomine')).toBe(false);
    // The moments the node would have mined a block: still none, and the transaction waits.
    await timer.tick();
    await timer.tick();
    expect((await mining.state()).height).toBe(paused.height);
    expect(await rpc(url, 'eth_getTransactionReceipt', [hash])).toBeNull();

    await mining.mine!(2);
    expect((await mining.state()).height).toBe(paused.height + 2);
    expect(await rpc(url, 'eth_getTransactionReceipt', [hash])).not.toBeNull();

    await mining.reorg!(2);
    expect((await mining.state()).height).toBe(paused.height + 2);
    expect(await rpc(url, 'eth_getTransactionReceipt', [hash])).toBeNull();

    await mining.resume!();
    expect((await mining.state()).paused).toBe(false);
    await timer.tick();
    expect((await mining.state()).height).toBe(paused.height + 3);
  });

  it('pays from the faucet again after a reorganisation dropped one of its payments (no nonce gap left behind)', async () => {
    const mining = node.mining!;
    const to = '0x00000000000000000000000000000000000000B7';
    await mining.pause!();
    // While paused the faucet answers at once with the payment waiting in the pool.
    const dropped = await node.faucet(to, 'ETH', 5n);
    expect(await rpc(url, 'eth_getTransactionReceipt', [dropped])).toBeNull();
    await mining.mine!(1);
    expect(await rpc(url, 'eth_getTransactionReceipt', [dropped])).not.toBeNull();
    await mining.reorg!(1);
    expect(await rpc(url, 'eth_getTransactionReceipt', [dropped])).toBeNull();
    await mining.resume!();
    // Mined (the faucet waits for it) at the nonce the dropped payment left free.
    const paid = await node.faucet(to, 'ETH', 7n);
    expect(await rpc<{ status: string } | null>(url, 'eth_getTransactionReceipt', [paid])).toMatchObject({ status: '0x1' });
    expect(BigInt(await rpc<string>(url, 'eth_getBalance', [to, 'latest']))).toBe(7n);
  });
});
