import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';
import { handTimer } from '../../../test/helpers/hand-timer.js';
import { startBitcoinLocalNode } from './hook.js';

/** The btcregtest node's mining controls (POST /sandbox/mining) on a real bcoin regtest node. */
describe('the btcregtest development node: pause, mine, reorganise, resume', { timeout: 60_000 }, () => {
  let node: LocalLedgerNode;
  let url: string;
  const timer = handTimer();
  beforeAll(async () => {
    node = await startBitcoinLocalNode({ every: timer.every });
    url = node.options.url as string;
  }, 60_000);
  afterAll(async () => node?.stop());

  const hashAt = async (height: number) => (await (await fetch(`${url}/block-height/${height}`)).text()).trim();

  it('stops its block timer while paused; mines on demand; replaces the last blocks; resumes', async () => {
    const mining = node.mining!;
    await mining.pause!();
    const paused = await mining.state();
    expect(paused.paused).toBe(true);
    await timer.tick();
    await timer.tick();
    expect((await mining.state()).height).toBe(paused.height);

    await mining.mine!(3);
    expect((await mining.state()).height).toBe(paused.height + 3);
    const before = [await hashAt(paused.height + 1), await hashAt(paused.height + 2), await hashAt(paused.height + 3)];
    await mining.reorg!(2);
    expect((await mining.state()).height).toBe(paused.height + 3);
    const after = [await hashAt(paused.height + 1), await hashAt(paused.height + 2), await hashAt(paused.height + 3)];
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[2]).not.toBe(before[2]);

    await mining.resume!();
    expect((await mining.state()).paused).toBe(false);
    await timer.tick();
    expect((await mining.state()).height).toBe(paused.height + 4);
  });
});
