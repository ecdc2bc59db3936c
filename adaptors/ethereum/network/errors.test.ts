import { describe, expect, it } from 'vitest';
import { classifyEthMessage, ETH_BLOCK_NOT_SERVED, ETH_NODE_MESSAGES, ETH_RATE_LIMIT, isBlockNotServed, isRateLimit } from './errors.js';

describe("a provider turning a call away (rate limit), from the providers' own words", () => {
  for (const ex of ETH_RATE_LIMIT.examples) {
    it(`${ex.client}: "${ex.message.slice(0, 60)}" is a rate limit`, () => {
      expect(isRateLimit(ex.message)).toBe(true);
    });
  }

  it("no refusal of a client is read as a rate limit, -32005 included (Besu's gas limit)", () => {
    const refusals = ETH_NODE_MESSAGES.flatMap((row) => row.examples);
    expect(refusals.filter((ex) => isRateLimit(ex.message))).toEqual([]);
    expect(isRateLimit('Transaction gas limit exceeds block gas limit')).toBe(false);
    expect(isRateLimit('block gas limit exceeded')).toBe(false);
  });
});

describe('a transaction the node already has', () => {
  it('is read from its words, and an unknown transaction type is not one', () => {
    expect(classifyEthMessage('Known transaction: 0xabc')?.kind).toBe('already_known');
    expect(classifyEthMessage('already known')?.kind).toBe('already_known');
    expect(classifyEthMessage('unknown transaction type')?.kind).not.toBe('already_known');
  });
});

describe("a read at a block the node does not serve (behind, or pruned), from the clients' own words", () => {
  for (const ex of ETH_BLOCK_NOT_SERVED.examples) {
    it(`${ex.client}: "${ex.message}" is neither a refusal nor a rate limit`, () => {
      expect(isBlockNotServed(ex.message)).toBe(true);
      expect(classifyEthMessage(ex.message)).toBeUndefined();
      expect(isRateLimit(ex.message)).toBe(false);
    });
  }

  it('no refusal or rate limit of a client is read as one', () => {
    const others = [...ETH_NODE_MESSAGES.flatMap((row) => row.examples), ...ETH_RATE_LIMIT.examples];
    expect(others.filter((ex) => isBlockNotServed(ex.message))).toEqual([]);
  });
});
