import pino from 'pino';
import { AssembledTxs } from './assembled.js';
import { Checksums, KeyAddresses } from './address.js';
import { describe, expect, it } from 'vitest';
import type { EthContext } from '../context.js';
import { parseFee, quoteFee } from './fees.js';
import { ChainReads } from '../network/chain-reads.js';
import { JsonRpcClient } from '../network/json-rpc.js';
import { ethereumOptionsSchema } from '../options.js';
import type { AdaptorDeps } from '../../../src/ledger/adaptor.js';
import { InvalidArgumentError } from '../../../src/platform/errors.js';

const GWEI = 1_000_000_000n;
const hex = (n: bigint): string => `0x${n.toString(16)}`;

/** A node that answers fee questions with fixed figures, to pin the arithmetic down exactly. */
function context(
  feeMode: 'eip1559' | 'legacy',
  answers: Record<string, unknown>,
  errors: Record<string, { code: number; message: string }> = {},
): { ctx: EthContext; asked: unknown[] } {
  const asked: unknown[] = [];
  const fakeFetch = (async (_url: string, init: RequestInit) => {
    const req = JSON.parse(String(init.body)) as { id: number; method: string; params: unknown[] };
    asked.push({ method: req.method, params: req.params });
    const error = errors[req.method];
    return new Response(JSON.stringify(error ? { jsonrpc: '2.0', id: req.id, error } : { jsonrpc: '2.0', id: req.id, result: answers[req.method] }));
  }) as typeof fetch;
  const options = ethereumOptionsSchema.parse({ rpcUrl: 'http://node.invalid', feeMode });
  const deps = { logger: pino({ level: 'silent' }) } as AdaptorDeps;
  const rpc = new JsonRpcClient(options.rpcUrl, fakeFetch);
  const ctx: EthContext = {
    ledgerId: 'ethdev',
    chainId: 31337,
    options,
    rpc,
    reads: new ChainReads(rpc, options.headMaxAgeMs),
    deps,
    assembled: new AssembledTxs(),
    addresses: new KeyAddresses(),
    checksums: new Checksums(),
    nativeAsset: { symbol: 'ETH', decimals: 18, native: true },
  };
  return { ctx, asked };
}

// Three blocks with transactions and one empty one (whose zero rewards must not count).
const HISTORY = {
  oldestBlock: '0x10',
  baseFeePerGas: [hex(10n * GWEI), hex(11n * GWEI), hex(12n * GWEI), hex(12n * GWEI), hex(13n * GWEI)],
  gasUsedRatio: [0.5, 0, 0.4, 0.6],
  reward: [
    [hex(1n * GWEI), hex(2n * GWEI), hex(5n * GWEI)],
    ['0x0', '0x0', '0x0'],
    [hex(3n * GWEI), hex(4n * GWEI), hex(6n * GWEI)],
    [hex(2n * GWEI), hex(3n * GWEI), hex(9n * GWEI)],
  ],
};

describe('ethereum fee quotes', () => {
  it('EIP-1559 levels: median over non-empty blocks of percentiles 10/50/90, max fee 2 × next base fee + tip', async () => {
    const { ctx, asked } = context('eip1559', { eth_feeHistory: HISTORY, eth_blockNumber: '0x13' });
    expect(asked).toEqual([]);
    const [low, medium, high] = await Promise.all(['LOW', 'MEDIUM', 'high'].map((level) => quoteFee(ctx, parseFee(level))));
    // Three quotes in one block: the head and the history are asked once.
    expect(asked).toEqual([
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_feeHistory', params: [20, 'latest', [10, 50, 90]] },
    ]);
    expect(low).toEqual({ type: 2, maxPriorityFeePerGas: 2n * GWEI, maxFeePerGas: 26n * GWEI + 2n * GWEI });
    expect(medium).toEqual({ type: 2, maxPriorityFeePerGas: 3n * GWEI, maxFeePerGas: 26n * GWEI + 3n * GWEI });
    expect(high).toEqual({ type: 2, maxPriorityFeePerGas: 6n * GWEI, maxFeePerGas: 26n * GWEI + 6n * GWEI });
  });

  it('a custom gwei figure is the max fee, tipping the MEDIUM tip at most', async () => {
    const { ctx } = context('eip1559', { eth_feeHistory: HISTORY, eth_blockNumber: '0x13' });
    expect(await quoteFee(ctx, parseFee('35'))).toEqual({ type: 2, maxFeePerGas: 35n * GWEI, maxPriorityFeePerGas: 3n * GWEI });
    expect(await quoteFee(ctx, parseFee('13.5'))).toEqual({ type: 2, maxFeePerGas: 13_500_000_000n, maxPriorityFeePerGas: 3n * GWEI });
    await expect(quoteFee(ctx, parseFee('12.999'))).rejects.toThrow(/below the next block's base fee of 13 gwei/);
  });

  it('an idle chain (no rewards) still tips a small floor', async () => {
    const idle = { ...HISTORY, gasUsedRatio: [0, 0, 0, 0] };
    const { ctx } = context('eip1559', { eth_feeHistory: idle, eth_blockNumber: '0x13' });
    expect(await quoteFee(ctx, parseFee('LOW'))).toMatchObject({ maxPriorityFeePerGas: 1_000_000n });
  });

  it('legacy: eth_gasPrice × 100/120/150 %; a custom figure is the gas price', async () => {
    const { ctx } = context('legacy', { eth_gasPrice: hex(20n * GWEI), eth_feeHistory: HISTORY, eth_blockNumber: '0x13' });
    expect(await quoteFee(ctx, parseFee('LOW'))).toEqual({ type: 0, gasPrice: 20n * GWEI });
    expect(await quoteFee(ctx, parseFee('MEDIUM'))).toEqual({ type: 0, gasPrice: 24n * GWEI });
    expect(await quoteFee(ctx, parseFee('HIGH'))).toEqual({ type: 0, gasPrice: 30n * GWEI });
    expect(await quoteFee(ctx, parseFee('13.5'))).toEqual({ type: 0, gasPrice: 13_500_000_000n });
  });

  it("legacy: a custom gas price under the next block's base fee is refused like an EIP-1559 max fee, with the same words and fields", async () => {
    const legacy = context('legacy', { eth_feeHistory: HISTORY, eth_blockNumber: '0x13' });
    const eip1559 = context('eip1559', { eth_feeHistory: HISTORY, eth_blockNumber: '0x13' });
    const refusals = await Promise.all(
      [legacy, eip1559].map(({ ctx }) =>
        quoteFee(ctx, parseFee('12.999')).then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    for (const e of refusals) {
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect((e as InvalidArgumentError).details).toBe("fee 12.999 gwei is below the next block's base fee of 13 gwei");
      expect((e as InvalidArgumentError).fields).toEqual({ field: 'fee', baseFeePerGas: String(13n * GWEI) });
    }
    // Only a custom figure asks for the base fee; at or above it the figure is the gas price.
    expect(await quoteFee(legacy.ctx, parseFee('13'))).toEqual({ type: 0, gasPrice: 13n * GWEI });
    expect(legacy.asked).toContainEqual({ method: 'eth_feeHistory', params: [1, 'latest', []] });
  });

  it('legacy: a chain without a base fee takes any custom gas price, and so does a node without eth_feeHistory', async () => {
    const preLondon = context('legacy', { eth_feeHistory: { ...HISTORY, baseFeePerGas: ['0x0', '0x0'] }, eth_blockNumber: '0x13' });
    expect(await quoteFee(preLondon.ctx, parseFee('0.000000001'))).toEqual({ type: 0, gasPrice: 1n });
    const old = context(
      'legacy',
      { eth_blockNumber: '0x13' },
      { eth_feeHistory: { code: -32601, message: 'the method eth_feeHistory does not exist/is not available' } },
    );
    expect(await quoteFee(old.ctx, parseFee('1'))).toEqual({ type: 0, gasPrice: GWEI });
    // Any other refusal of the read is never taken as "no base fee": the latest block says whether there is one…
    const refusing = context(
      'legacy',
      { eth_blockNumber: '0x13', eth_getBlockByNumber: { number: '0x13', baseFeePerGas: `0x${(20n * GWEI).toString(16)}` } },
      { eth_feeHistory: { code: -32000, message: 'header not found' } },
    );
    await expect(quoteFee(refusing.ctx, parseFee('1'))).rejects.toMatchObject({ status: 422, errCode: 'ERR_INVALID_ARGUMENTS' });
    // …and when the node cannot answer that either, the request is asked again.
    const failing = context(
      'legacy',
      { eth_blockNumber: '0x13' },
      { eth_feeHistory: { code: -32000, message: 'header not found' }, eth_getBlockByNumber: { code: -32000, message: 'header not found' } },
    );
    await expect(quoteFee(failing.ctx, parseFee('1'))).rejects.toMatchObject({ retryable: true });
  });

  it('legacy: a node without eth_feeHistory is not asked for its latest block; one that refuses it otherwise is asked for the latest header only', async () => {
    const old = context(
      'legacy',
      { eth_blockNumber: '0x13', eth_getBlockByNumber: { number: '0x13', baseFeePerGas: hex(20n * GWEI) } },
      { eth_feeHistory: { code: -32601, message: 'the method eth_feeHistory does not exist/is not available' } },
    );
    expect(await quoteFee(old.ctx, parseFee('1'))).toEqual({ type: 0, gasPrice: GWEI });
    expect(old.asked).not.toContainEqual(expect.objectContaining({ method: 'eth_getBlockByNumber' }));
    const refusing = context(
      'legacy',
      { eth_blockNumber: '0x13', eth_getBlockByNumber: { number: '0x13', baseFeePerGas: hex(20n * GWEI) } },
      { eth_feeHistory: { code: -32000, message: 'header not found' } },
    );
    expect(await quoteFee(refusing.ctx, parseFee('20'))).toEqual({ type: 0, gasPrice: 20n * GWEI });
    // Hashes only (false): the block's transactions are not needed for its base fee.
    expect(refusing.asked).toContainEqual({ method: 'eth_getBlockByNumber', params: ['latest', false] });
  });

  it('EIP-1559 tips over an even number of non-empty blocks take the upper middle value', async () => {
    const even = {
      ...HISTORY,
      gasUsedRatio: [0.5, 0.5, 0.5, 0.5],
      reward: [
        [hex(4n * GWEI), hex(4n * GWEI), hex(4n * GWEI)],
        [hex(1n * GWEI), hex(1n * GWEI), hex(1n * GWEI)],
        [hex(3n * GWEI), hex(3n * GWEI), hex(3n * GWEI)],
        [hex(2n * GWEI), hex(2n * GWEI), hex(2n * GWEI)],
      ],
    };
    const { ctx } = context('eip1559', { eth_feeHistory: even, eth_blockNumber: '0x13' });
    expect(await quoteFee(ctx, parseFee('MEDIUM'))).toEqual({ type: 2, maxPriorityFeePerGas: 3n * GWEI, maxFeePerGas: 26n * GWEI + 3n * GWEI });
  });

  it('a fee history without rewards (a node that leaves them out) tips the floor', async () => {
    const { reward: _, ...bare } = HISTORY;
    const { ctx } = context('eip1559', { eth_feeHistory: bare, eth_blockNumber: '0x13' });
    expect(await quoteFee(ctx, parseFee('HIGH'))).toEqual({ type: 2, maxPriorityFeePerGas: 1_000_000n, maxFeePerGas: 26n * GWEI + 1_000_000n });
  });

  it('percentiles a node answers out of order never quote a level below the one under it', async () => {
    // Each block's 10th percentile above its 50th, and its 90th below both.
    const unordered = { ...HISTORY, gasUsedRatio: [0.5], reward: [[hex(5n * GWEI), hex(3n * GWEI), hex(2n * GWEI)]] };
    const { ctx } = context('eip1559', { eth_feeHistory: unordered, eth_blockNumber: '0x13' });
    const quotes = await Promise.all(['LOW', 'MEDIUM', 'HIGH'].map((level) => quoteFee(ctx, parseFee(level))));
    const tip = { type: 2, maxPriorityFeePerGas: 5n * GWEI, maxFeePerGas: 26n * GWEI + 5n * GWEI };
    expect(quotes).toEqual([tip, tip, tip]);
  });
});

describe('ethereum fee parsing', () => {
  const refusal = (fee: unknown): unknown => {
    try {
      return parseFee(fee as string);
    } catch (e) {
      return e;
    }
  };

  it('takes a gwei figure with spaces around it', () => {
    expect(parseFee(' 35 ')).toEqual({ customWei: 35n * GWEI });
    expect(parseFee('\t1.5\n')).toEqual({ customWei: 1_500_000_000n });
  });

  it('refuses anything but a level or a plain gwei figure with a 422 naming the valid values', () => {
    for (const fee of ['fast', 'x35', '35x', '35 gwei', '1.', '.5', '-1', '1e9', '', 35]) {
      const e = refusal(fee);
      expect(e, String(fee)).toBeInstanceOf(InvalidArgumentError);
      expect((e as InvalidArgumentError).details).toBe(`Unknown fee '${String(fee)}'. Valid values: HIGH, MEDIUM, LOW or a gwei figure (e.g. 35 or 1.5)`);
      expect((e as InvalidArgumentError).fields).toEqual({ field: 'fee', valid: ['MEDIUM', 'HIGH', 'LOW'] });
    }
  });

  it('refuses a gwei figure finer than one wei, naming the fee', () => {
    const e = refusal('1.0000000001');
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as InvalidArgumentError).details).toBe('fee (gwei) 1.0000000001 has 10 decimal places; this asset allows at most 9');
  });
});
