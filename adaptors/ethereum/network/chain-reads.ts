import { Interface } from 'ethers';
import type { AssetInfo } from '../../../src/ledger/adaptor.js';
import { BlockCache } from './block-cache.js';
import { CallBatcher } from './call-batcher.js';
import type { JsonRpcClient, RpcCall } from './json-rpc.js';

const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)']);

/** The call that reads one balance: `eth_getBalance` for ETH, `eth_call balanceOf` for an ERC-20, at `blockTag`. */
export function balanceCall(address: string, asset: AssetInfo, blockTag = 'latest'): RpcCall {
  return asset.native
    ? { method: 'eth_getBalance', params: [address, blockTag] }
    : { method: 'eth_call', params: [{ to: asset.contract, data: ERC20.encodeFunctionData('balanceOf', [address]) }, blockTag] };
}

/** A balance result as a bigint (`0x` from a contract without code reads as zero). */
export const balanceValue = (hex: string): bigint => BigInt(hex === '0x' ? '0x0' : hex);

/** One account as one block shows it. */
export interface AccountAtBlock {
  address: string;
  /** Balance per asset, in the order asked. */
  balances: bigint[];
  /** Transactions of the account mined up to the block: the spends of lower nonces are in `balances`. */
  minedNonce: bigint;
  /** The node's pending count (its mempool included), a floor for the next nonce. */
  pendingNonce: bigint;
}

export interface AccountsSnapshot {
  block: bigint;
  accounts: AccountAtBlock[];
}

export interface FeeHistory {
  oldestBlock?: string;
  baseFeePerGas: string[];
  gasUsedRatio: number[];
  reward?: string[][];
}

/**
 * The reads a withdrawal needs from an Ethereum node, each made once per head block (see
 * BlockCache) and batched where they go together.
 */
export class ChainReads {
  private readonly cache: BlockCache;
  private readonly batcher: CallBatcher;

  constructor(
    private readonly rpc: JsonRpcClient,
    headMaxAgeMs: number,
  ) {
    this.cache = new BlockCache(rpc, headMaxAgeMs);
    this.batcher = new CallBatcher(rpc);
  }

  /**
   * Balances and nonces of `addresses`, read once per head block (`fresh`: the head is asked
   * again first). Nodes that prune old state (anvil `--prune-history`, a provider's replicas)
   * refuse reads at a block number, so the reads are at `latest`, ordered so that the mined
   * nonce is never ahead of the balance: the nonces first, then each nonce again just before
   * its balances, keeping the lower. A spend whose nonce the balance already shows mined may
   * then be counted once too often (a refusal that a fresh read decides again), never the
   * other way round.
   */
  async accounts(addresses: string[], assets: AssetInfo[], fresh = false): Promise<AccountsSnapshot> {
    const key = `accounts:${addresses.join(',')}:${assets.map((a) => a.symbol).join(',')}`;
    const { block, value } = await this.cache.atHead(
      key,
      async () => {
        const first = await this.rpc.batch<string>(
          addresses.flatMap((a) => [
            { method: 'eth_getTransactionCount', params: [a, 'latest'] },
            { method: 'eth_getTransactionCount', params: [a, 'pending'] },
          ]),
        );
        const calls: RpcCall[] = addresses.flatMap((a) => [
          { method: 'eth_getTransactionCount', params: [a, 'latest'] },
          ...assets.map((asset) => balanceCall(a, asset)),
        ]);
        const second = await this.rpc.batch<string>(calls);
        const per = assets.length + 1;
        return addresses.map((address, i) => {
          const before = BigInt(first[2 * i] as string);
          const again = BigInt(second[i * per] as string);
          return {
            address,
            balances: assets.map((_, j) => balanceValue(second[i * per + 1 + j] as string)),
            minedNonce: before < again ? before : again,
            pendingNonce: BigInt(first[2 * i + 1] as string),
          };
        });
      },
      fresh,
    );
    return { block, accounts: value };
  }

  /** `eth_feeHistory` over `blocks` blocks up to the head block. */
  async feeHistory(blocks: number, percentiles: number[]): Promise<FeeHistory> {
    const key = `feeHistory:${blocks}:${percentiles.join(',')}`;
    return (await this.cache.atHead(key, () => this.rpc.call<FeeHistory>('eth_feeHistory', [blocks, 'latest', percentiles]))).value;
  }

  /** `eth_gasPrice`, once per block. */
  async gasPrice(): Promise<bigint> {
    return (await this.cache.atHead('gasPrice', async () => BigInt(await this.rpc.call<string>('eth_gasPrice', [])))).value;
  }

  /**
   * `eth_estimateGas` of one call, once per block: the same call against the same state costs
   * the same gas. A failed estimate (a revert) is not kept. Estimates of different calls
   * asked at the same moment share one round trip.
   */
  async estimateGas(params: { from: string; to: string; value: string; data: string }): Promise<bigint> {
    const key = `estimateGas:${params.from}:${params.to}:${params.value}:${params.data}`;
    return (await this.cache.atHead(key, async () => BigInt(await this.batcher.call<string>('eth_estimateGas', [params])))).value;
  }
}
