import type { AssetInfo, Balance } from '../../../src/ledger/adaptor.js';
import { balanceCall, balanceValue } from '../network/chain-reads.js';
import type { JsonRpcClient, RpcCall } from '../network/json-rpc.js';

/**
 * Balances of every address in every asset in one batched JSON-RPC round trip:
 * `eth_getBalance` for ETH, `eth_call balanceOf` for each ERC-20.
 */
export async function getBalances(rpc: JsonRpcClient, addresses: string[], assets: AssetInfo[]): Promise<Balance[]> {
  const calls: RpcCall[] = [];
  const keys: { address: string; asset: string }[] = [];
  for (const address of addresses) {
    for (const asset of assets) {
      keys.push({ address, asset: asset.symbol });
      calls.push(balanceCall(address, asset));
    }
  }
  const results = await rpc.batch<string>(calls);
  return keys.map((k, i) => ({ ...k, amount: balanceValue(results[i] as string) }));
}
