import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
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
  beforeAll(async () => {
    node = await startEthereumLocalNode();
    url = node.options.rpcUrl as string;
  }, 60_000);
  afterAll(async () => node?.stop());

  it('holds a sent transaction while paused; mines on demand; a reorg takes it out; resuming mines again', async () => {
    const mining = node.mining!;
    await mining.pause!();
    const paused = await mining.state();
    expect(paused.paused).toBe(true);
    const from = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from, to: '0x00000000000000000000000000000000000000A1', value: '0x1' }]);
    await new Promise((r) => setTimeout(r, 2500));
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
    const end = Date.now() + 6000;
    while ((await mining.state()).height === paused.height + 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    expect((await mining.state()).height).toBeGreaterThan(paused.height + 2);
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
