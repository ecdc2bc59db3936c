import { describe, expect, it } from 'vitest';
import { AssembledTxs } from './logic/assembled.js';

/** broadcast trusts an entry only for the very bytes combine assembled under that txid. */
describe('AssembledTxs', () => {
  const entry = (n: number) => ({ txid: `0xAB${n}`, serialized: `0x02f8${n}`, from: '0x00000000000000000000000000000000000000b0', nonce: n });

  it('finds an entry by txid (any case) only for the same bytes', () => {
    const txs = new AssembledTxs();
    txs.remember(entry(1));
    expect(txs.find('0xab1', '0x02f81')).toEqual(entry(1));
    expect(txs.find('0xAB1', '0x02f81')?.nonce).toBe(1);
    expect(txs.find('0xab1', '0x02f82')).toBeUndefined();
    expect(txs.find('0xab2', '0x02f81')).toBeUndefined();
  });

  it('keeps at most its bound, dropping the oldest first', () => {
    const txs = new AssembledTxs(2);
    for (const n of [1, 2, 3]) txs.remember(entry(n));
    expect(txs.find('0xab1', '0x02f81')).toBeUndefined();
    expect(txs.find('0xab2', '0x02f82')?.nonce).toBe(2);
    expect(txs.find('0xab3', '0x02f83')?.nonce).toBe(3);
  });
});
