import { describe, expect, it } from 'vitest';
import { solanaOptionsSchema } from './options.js';

describe('solana options', () => {
  const parse = (o: object) => solanaOptionsSchema.safeParse(o);

  it('options are strict: URL, mint, symbols, commitment', () => {
    expect(parse({ rpcUrl: 'https://api.mainnet-beta.solana.com' }).success).toBe(true);
    expect(parse({ rpcUrl: 'ftp://x' }).success).toBe(false);
    expect(parse({ rpcUrl: 'http://x', extra: 1 }).success).toBe(false);
    expect(parse({ rpcUrl: 'http://x', commitment: 'processed' }).success).toBe(false);
    expect(parse({ rpcUrl: 'http://x', tokens: [{ symbol: 'USDC', mint: 'nope', decimals: 6 }] }).success).toBe(false);
    const usdc = { symbol: 'USDC', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6 };
    expect(parse({ rpcUrl: 'http://x', tokens: [usdc, usdc] }).success).toBe(false);
    expect(parse({ rpcUrl: 'http://x', tokens: [{ ...usdc, symbol: 'SOL' }] }).success).toBe(false);
  });
});
