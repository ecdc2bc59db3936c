import { describe, expect, it } from 'vitest';
import { onceEach } from './blockset-facade.js';

const meta = (txid: string, height: number) => ({ tx: { txid: () => txid }, height });

describe("the Blockset facade's listing of an address", () => {
  it('lists a transaction once when bcoin gave it from the mempool and from a block connected meanwhile, as confirmed', () => {
    // bcoin's order: the chain's records, then the mempool's read before them.
    const listed = onceEach([meta('a', 5), meta('b', 6), meta('b', -1), meta('c', -1)]);
    expect(listed.map((m) => [m.tx.txid(), m.height])).toEqual([
      ['a', 5],
      ['b', 6],
      ['c', -1],
    ]);
    expect(onceEach([meta('b', -1), meta('b', 6)]).map((m) => m.height)).toEqual([6]);
  });
});
