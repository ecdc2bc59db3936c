import { Interface } from 'ethers';
import type { AssetInfo, Balance } from '../../../src/ledger/adaptor.js';
import type { JsonRpcClient, RpcCall } from '../network/json-rpc.js';

const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)']);

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
      calls.push(
        asset.native
          ? { method: 'eth_getBalance', params: [address, 'latest'] }
          : {
              method: 'eth_call',
              params: [{ to: asset.contract, data: ERC20.encodeFunctionData('balanceOf', [address]) }, 'latest'],
            },
      );
    }
  }
  const results = await rpc.batch<string>(calls);
  return keys.map((k, i) => ({ ...k, amount: BigInt(results[i] === '0x' ? '0x0' : (results[i] as string)) }));
}
