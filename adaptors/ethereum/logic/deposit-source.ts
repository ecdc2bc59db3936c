import { getAddress } from 'ethers';
import type { ChainBlock, ChainTransfer, DepositSource } from '../../../src/ledger/deposit-source.js';
import { UpstreamError } from '../../../src/platform/errors.js';
import type { EthContext } from '../context.js';
import { ERC20, transferParties } from './erc20.js';

const TRANSFER_TOPIC = ERC20.getEvent('Transfer')!.topicHash;

interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactions: { hash: string; from: string; to: string | null; value: string }[];
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

const hex = (n: number) => `0x${n.toString(16)}`;
const lower = (a: string) => a.toLowerCase();
/** The address in a 32-byte topic. */
const topicAddress = (topic: string) => getAddress(`0x${topic.slice(-40)}`);

/**
 * What arrives on an Ethereum ledger, one block at a time, in one batched round trip: the block
 * with its transactions (native value) and every ERC-20 `Transfer` log of the block (tokens,
 * configured or not), then the receipts of the transactions that pay ETH to a watched address
 * (a reverted one moved nothing). The logs are asked by block number in the same batch and
 * checked against the block's hash: a block replaced between the two answers is asked again
 * by hash. ETH moved by contracts (internal calls) leaves no trace in blocks or logs and is not
 * seen.
 */
export function ethereumDepositSource(ctx: EthContext): DepositSource {
  const tokens = new Map(ctx.options.tokens.map((t) => [lower(t.contract), t.symbol]));
  const rpc = ctx.rpc;
  return {
    normalize: lower,
    tip: async () => {
      const b = await rpc.call<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]);
      if (!b) throw new UpstreamError('Ethereum node has no latest block', true);
      return { height: Number(b.number), hash: b.hash };
    },
    block: async (height, watching) => {
      const [b, logsByNumber] = await rpc.batch<unknown>([
        { method: 'eth_getBlockByNumber', params: [hex(height), true] },
        { method: 'eth_getLogs', params: [{ fromBlock: hex(height), toBlock: hex(height), topics: [TRANSFER_TOPIC] }] },
      ]);
      const block = b as RpcBlock | null;
      if (!block) return undefined;
      let logs = logsByNumber as RpcLog[];
      if (logs.some((l) => l.blockHash !== block.hash)) logs = await rpc.call<RpcLog[]>('eth_getLogs', [{ blockHash: block.hash, topics: [TRANSFER_TOPIC] }]);
      const transfers: ChainTransfer[] = [];
      const paying = block.transactions.filter((t) => t.to && BigInt(t.value) > 0n && (!watching || watching(t.to)));
      const receipts = await rpc.batch<{ status?: string } | null>(paying.map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.hash] })));
      paying.forEach((t, i) => {
        // Before Byzantium receipts have no status; a status 0 transaction moved no value.
        if (receipts[i]?.status === '0x0') return;
        transfers.push({
          txid: t.hash,
          index: 'value',
          to: lower(t.to as string),
          asset: ctx.nativeAsset.symbol,
          configured: true,
          amount: BigInt(t.value),
          from: [lower(t.from)],
        });
      });
      // A transaction's position among its own Transfer logs: the same in whatever block it lands (a log index counts from the block's start).
      const nth = new Map<string, number>();
      for (const log of [...logs].sort((x, y) => Number(x.logIndex) - Number(y.logIndex))) {
        if (log.removed) continue;
        const parties = transferParties(log);
        const n = nth.get(log.transactionHash) ?? 0;
        nth.set(log.transactionHash, n + 1);
        // ERC-721 shares the topic with the token id indexed (four topics): transferParties leaves it out.
        if (!parties || !/^0x[0-9a-fA-F]{64,}$/.test(log.data)) continue;
        const to = lower(topicAddress(parties[1]));
        if (watching && !watching(to)) continue;
        const symbol = tokens.get(lower(log.address));
        transfers.push({
          txid: log.transactionHash,
          index: `log:${n}`,
          to,
          asset: symbol ?? lower(log.address),
          configured: symbol !== undefined,
          // The value is the data's last word (the only one, or after from and to in early tokens' form).
          amount: BigInt(`0x${log.data.slice(-64)}`),
          from: [lower(topicAddress(parties[0]))],
        });
      }
      return {
        height: Number(block.number),
        hash: block.hash,
        parentHash: block.parentHash,
        time: Number(block.timestamp) * 1000,
        transfers,
      } satisfies ChainBlock;
    },
  };
}
