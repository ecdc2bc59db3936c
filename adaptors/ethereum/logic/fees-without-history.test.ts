import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AssembledTxs } from './assembled.js';
import { Checksums, KeyAddresses } from './address.js';
import type { EthContext } from '../context.js';
import { parseFee, quoteFee } from './fees.js';
import { ChainReads } from '../network/chain-reads.js';
import { JsonRpcClient } from '../network/json-rpc.js';
import { ethereumOptionsSchema } from '../options.js';
import type { AdaptorDeps } from '../../../src/ledger/adaptor.js';

/**
 * A node that refuses `eth_feeHistory` with -32000 (Hardhat before London: its exact answer
 * below) serves a chain whose blocks may have no base fee: a legacy custom gas price is then
 * checked against the latest block's `baseFeePerGas`, or taken as it is when there is none.
 */
function refusingFeeHistory(baseFeePerGas?: string): EthContext {
  const fakeFetch = (async (_url: string, init: RequestInit) => {
    const req = JSON.parse(String(init.body)) as { id: number; method: string };
    if (req.method === 'eth_feeHistory') {
      const message = 'eth_feeHistory is disabled. It only works with the London hardfork or a later one.';
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: req.id, error: { code: -32000, message, data: { message, data: null } } }));
    }
    const block = { number: '0x13', ...(baseFeePerGas ? { baseFeePerGas } : {}) };
    const result = { eth_gasPrice: '0x1dcd65000', eth_blockNumber: '0x13', eth_getBlockByNumber: block }[req.method as string];
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: req.id, result }));
  }) as typeof fetch;
  const options = ethereumOptionsSchema.parse({ rpcUrl: 'http://node.invalid', feeMode: 'legacy' });
  const rpc = new JsonRpcClient(options.rpcUrl, fakeFetch);
  return {
    ledgerId: 'ethdev',
    chainId: 31337,
    options,
    rpc,
    reads: new ChainReads(rpc, options.headMaxAgeMs),
    deps: { logger: pino({ level: 'silent' }) } as AdaptorDeps,
    assembled: new AssembledTxs(),
    addresses: new KeyAddresses(),
    checksums: new Checksums(),
    nativeAsset: { symbol: 'ETH', decimals: 18, native: true },
  };
}

describe('legacy fee mode on a node that refuses eth_feeHistory', () => {
  it('a level fee works (no base fee asked)', async () => {
    expect(await quoteFee(refusingFeeHistory(), parseFee('MEDIUM'))).toMatchObject({ type: 0 });
  });
  it('a custom gas price is taken as it is when the latest block has no base fee (before London)', async () => {
    expect(await quoteFee(refusingFeeHistory(), parseFee('10'))).toEqual({ type: 0, gasPrice: 10_000_000_000n });
  });
  it("a custom gas price under the latest block's base fee is refused, when it has one", async () => {
    await expect(quoteFee(refusingFeeHistory(`0x${(20n * 10n ** 9n).toString(16)}`), parseFee('10'))).rejects.toMatchObject({
      status: 422,
      errCode: 'ERR_INVALID_ARGUMENTS',
    });
    expect(await quoteFee(refusingFeeHistory(`0x${(20n * 10n ** 9n).toString(16)}`), parseFee('25'))).toEqual({ type: 0, gasPrice: 25_000_000_000n });
  });
});
