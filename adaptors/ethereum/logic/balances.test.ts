import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ethereumFamily } from '../index.js';
import type { LedgerAdaptor } from '../../../src/ledger/adaptor.js';
import { Reservations } from '../../../src/ledger/reservations.js';
import { startTestChain, type TestChain } from '../../../test/helpers/chain.js';
import { testRedis } from '../../../test/helpers/redis.js';

describe('ethereum balances on a real anvil node', () => {
  let chain: TestChain;
  let adaptor: LedgerAdaptor;
  const { redis, prefix } = testRedis();

  beforeAll(async () => {
    chain = await startTestChain();
    const options = ethereumFamily.optionsSchema.parse({ rpcUrl: chain.anvil.url, tokens: [chain.token] });
    adaptor = ethereumFamily.create('ethdev', options, {
      logger: pino({ level: 'silent' }),
      fetch,
      reservations: new Reservations(redis, prefix),
    });
  });
  afterAll(async () => {
    await chain.stop();
    redis.disconnect();
  });

  it('reads ETH and ERC-20 balances in base units', async () => {
    const addr = '0x000000000000000000000000000000000000bEEF';
    await chain.funder.sendEth(addr, 1_234_000_000_000_000_000n);
    await chain.funder.sendToken(chain.token.contract, addr, 5_500_000n);
    const [eth, demo] = adaptor.assets();
    const balances = await adaptor.getBalances([addr], [eth!, demo!]);
    expect(balances).toEqual([
      { address: addr, asset: 'ETH', amount: 1_234_000_000_000_000_000n },
      { address: addr, asset: 'DEMO', amount: 5_500_000n },
    ]);
  });

  it('reports health with the chain id check', async () => {
    const h = await adaptor.health();
    expect(h.healthy).toBe(true);
    expect(h.network).toBe('chain 31337');
    expect(h.height).toBeGreaterThan(0);
  });
});
