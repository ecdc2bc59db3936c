/**
 * The drain's reference: how fast the node itself takes an account's transactions. A fresh
 * account funded here signs `n` transfers with nonces 0..n-1 beforehand; a bare JSON-RPC client
 * sends them one at a time, each after the node answered the previous one (no gap is ever
 * open, as the pipeline's ordered sending keeps none), over the HTTP client the service's
 * adaptors use (keepAliveFetch).
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import { DevChainFunder } from '../adaptors/ethereum/local-node/dev-chain.js';
import { sendOneAtATime, type BareSend } from './drain-kit.js';
import { keepAliveFetch, type HttpFetch } from '../src/platform/http-client.js';

/** One JSON-RPC call to an Ethereum node (by `fetch` unless `through` is given); throws the node's error. */
export async function rpc(url: string, method: string, params: unknown[], id = 1, through: HttpFetch = fetch): Promise<unknown> {
  const res = await through(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

export async function bareSend(rpcUrl: string, n: number, to: string): Promise<BareSend> {
  const height = Number(BigInt((await rpc(rpcUrl, 'eth_blockNumber', [])) as string));
  const wallet = Wallet.createRandom();
  const funder = new DevChainFunder(rpcUrl);
  await funder.sendEth(wallet.address, 10n ** 18n);
  funder.destroy();
  const provider = new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, staticNetwork: true });
  const fee = await provider.getFeeData();
  provider.destroy();
  const raws: string[] = [];
  for (let nonce = 0; nonce < n; nonce++) {
    raws.push(
      await wallet.signTransaction({
        type: 2,
        chainId: 31337n,
        nonce,
        to,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: (fee.maxFeePerGas ?? 2_000_000_000n) * 2n,
        maxPriorityFeePerGas: fee.maxPriorityFeePerGas ?? 1_000_000_000n,
      }),
    );
  }
  const http = keepAliveFetch(1);
  const { seconds, rpcMsP50 } = await sendOneAtATime(raws, async (raw, i) => void (await rpc(rpcUrl, 'eth_sendRawTransaction', [raw], i, http)));
  // Taken means in the node's pool (anvil mines them a moment later), as for the pipeline's sends.
  const count = Number(BigInt((await rpc(rpcUrl, 'eth_getTransactionCount', [wallet.address, 'pending'])) as string));
  if (count !== n) throw new Error(`bare client: the node holds ${count} of ${n} transactions`);
  return { height, transactions: n, seconds, perSecond: n / seconds, rpcMsP50 };
}
