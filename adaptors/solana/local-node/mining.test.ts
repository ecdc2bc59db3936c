import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { startSolanaLocalNode } from './hook.js';

/** The solanadev node's mining controls (POST /sandbox/mining): `mine` produces empty blocks, nothing else is offered. */
describe('the solanadev development node: mine', () => {
  let node: LocalLedgerNode;
  beforeAll(async () => {
    node = await startSolanaLocalNode();
  });
  afterAll(async () => node?.stop());

  const rpc = async (method: string) => {
    const res = await fetch(node.options.rpcUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    });
    return ((await res.json()) as { result: number }).result;
  };

  it('mines empty blocks on demand, its height the node’s block height; no pause, resume or reorg', async () => {
    const mining = node.mining!;
    expect([mining.pause, mining.resume, mining.reorg]).toEqual([undefined, undefined, undefined]);
    // Its own mint and faucet transactions rooted (two blocks: the default finality depth), its clock has nothing left to do.
    await mining.mine!(2);
    const before = await mining.state();
    expect(before).toEqual({ paused: false, height: await rpc('getBlockHeight') });
    const slot = await rpc('getSlot');
    await mining.mine!(3);
    expect(await mining.state()).toEqual({ paused: false, height: before.height + 3 });
    expect(await rpc('getSlot')).toBe(slot + 3);
  });
});
