import { describe, expect, it } from 'vitest';
import { onceEach } from './regtest-node.js';

const record = (id: string, height: number) => ({ id, height });
const listed = (items: { id: string; height: number }[]) =>
  onceEach(
    items,
    (i) => i.id,
    (i) => i.height,
  ).map((i) => `${i.id}@${i.height}`);

describe("the regtest node's listings of an address", () => {
  it('give a record once when bcoin gave it from the mempool and from a block connected meanwhile: the confirmed one', () => {
    // bcoin's orders: chain then mempool (transactions), mempool-filtered chain then mempool (coins).
    expect(listed([record('a', 5), record('b', 6), record('b', -1), record('c', -1)])).toEqual(['a@5', 'b@6', 'c@-1']);
    expect(listed([record('b', -1), record('b', 6)])).toEqual(['b@6']);
  });

  it('keep distinct records, confirmed or not, as they came', () => {
    expect(listed([record('x:0', -1), record('x:1', -1), record('y:0', 3)])).toEqual(['x:0@-1', 'x:1@-1', 'y:0@3']);
  });
});
