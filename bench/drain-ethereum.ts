/**
 * The pipeline drain on Ethereum (bench/drain-kit.ts): anvil making a block every second, one
 * vault holding 100 ETH, and the bare client of bench/bare-sender.ts. Ordering rule: the
 * vault's transactions carry exactly the nonces 0..n-1 and the node counts n of them.
 */
import { DevChainFunder } from '../adaptors/ethereum/local-node/dev-chain.js';
import { bareSend } from './bare-sender.js';
import type { DrainKit, OrderCheck } from './drain-kit.js';

export function ethereumDrainKit(anvilUrl: string, recipient: string): DrainKit {
  let vaultAddress = '';
  return {
    family: 'Ethereum',
    ledgerId: 'ethdev',
    options: { rpcUrl: anvilUrl, confirmations: 1 },
    vaults: async (service, n) => {
      const { vaultId, address } = await service.registerVault('ethdev', 'ECDSA');
      const funder = new DevChainFunder(anvilUrl);
      await funder.sendEth(address, 100n * 10n ** 18n);
      funder.destroy();
      vaultAddress = address;
      return Array.from({ length: n }, () => vaultId);
    },
    withdrawal: () => ({ recipientAddress: recipient, amount: '0.001' }),
    bare: (n) => bareSend(anvilUrl, n, recipient),
    check: async (ops) => {
      const { nonces, chainCount } = await chainNonces(
        anvilUrl,
        ops.flatMap((o) => o.txids.slice(0, 1)),
        vaultAddress,
      );
      const n = ops.length;
      const contiguous = nonces.length === n && nonces.every((x, i) => x === i);
      const check: OrderCheck = {
        rule: 'nonces',
        ok: contiguous && chainCount === n,
        detail: `nonces ${nonces[0] ?? '-'}..${nonces.at(-1) ?? '-'} (${nonces.length}), chain count ${chainCount}`,
      };
      return check;
    },
    stop: async () => undefined,
  };
}

async function rpc<T>(url: string, body: unknown): Promise<T> {
  return (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as T;
}

/** The nonces of the vault's transactions as the node has them, sorted, and the account's pending transaction count. */
async function chainNonces(anvilUrl: string, txids: string[], address: string): Promise<{ nonces: number[]; chainCount: number }> {
  const nonces: number[] = [];
  for (let i = 0; i < txids.length; i += 100) {
    const batch = txids.slice(i, i + 100).map((h, k) => ({ jsonrpc: '2.0', id: k, method: 'eth_getTransactionByHash', params: [h] }));
    for (const r of await rpc<{ result: { nonce: string } | null }[]>(anvilUrl, batch)) if (r.result) nonces.push(Number(BigInt(r.result.nonce)));
  }
  nonces.sort((x, y) => x - y);
  const count = await rpc<{ result: string }>(anvilUrl, { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionCount', params: [address, 'pending'] });
  return { nonces, chainCount: Number(BigInt(count.result)) };
}
