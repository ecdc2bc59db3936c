/**
 * The pipeline drain on Ethereum (bench/drain-kit.ts): anvil making a block every second, one
 * vault (or `vaultCount`, the withdrawals spread over them in turn) holding 100 ETH each, and
 * the bare client of bench/bare-sender.ts. Ordering rule: the transactions of each vault carry
 * exactly the nonces 0..m-1 and the node counts m of them.
 */
import { DevChainFunder } from '../adaptors/ethereum/local-node/dev-chain.js';
import { bareSend } from './bare-sender.js';
import type { DrainKit, OrderCheck } from './drain-kit.js';

export function ethereumDrainKit(anvilUrl: string, recipient: string, vaultCount = 1): DrainKit {
  // vaultId → address, of the vaults the drain sends from (withdrawal i from vault i mod vaultCount).
  const addresses = new Map<string, string>();
  return {
    family: 'Ethereum',
    ledgerId: 'ethdev',
    options: { rpcUrl: anvilUrl, confirmations: 1 },
    vaults: async (service, n) => {
      // Each drain (live, then backlog) sends from vaults of its own, whose nonces start at 0.
      addresses.clear();
      const funder = new DevChainFunder(anvilUrl);
      try {
        for (let k = 0; k < vaultCount; k++) {
          const { vaultId, address } = await service.registerVault('ethdev', 'ECDSA');
          await funder.sendEth(address, 100n * 10n ** 18n);
          addresses.set(vaultId, address);
        }
      } finally {
        funder.destroy();
      }
      const ids = [...addresses.keys()];
      return Array.from({ length: n }, (_, i) => ids[i % ids.length] as string);
    },
    withdrawal: () => ({ recipientAddress: recipient, amount: '0.001' }),
    bare: (n) => bareSend(anvilUrl, n, recipient),
    check: async (ops) => {
      // Per vault: its transactions carry exactly the nonces 0..m-1 and the node counts m of them.
      let ok = true;
      const details: string[] = [];
      for (const [vaultId, address] of addresses) {
        const own = ops.filter((o) => o.vaultId === vaultId);
        const { nonces, chainCount } = await chainNonces(
          anvilUrl,
          own.flatMap((o) => o.txids.slice(0, 1)),
          address,
        );
        const m = own.length;
        ok &&= nonces.length === m && nonces.every((x, i) => x === i) && chainCount === m;
        details.push(`nonces ${nonces[0] ?? '-'}..${nonces.at(-1) ?? '-'} (${nonces.length}), chain count ${chainCount}`);
      }
      const check: OrderCheck = { rule: 'nonces', ok, detail: addresses.size === 1 ? (details[0] ?? '') : `${addresses.size} vaults: ${details.join('; ')}` };
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
