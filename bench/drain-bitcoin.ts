/**
 * The pipeline drain on Bitcoin (bench/drain-kit.ts): the bcoin regtest node in this process
 * behind its Esplora facade, a block a second. One P2WPKH vault holds a coin of 100,000 sat per
 * withdrawal; each withdrawal pays 10,000 sat. The bare client holds as many coins of its own
 * and sends one pre-signed spend of each through the same facade. Ordering rule: no coin is
 * spent twice (every input of the drained withdrawals is distinct) and the node holds every
 * withdrawal's transaction.
 */
import { createHash } from 'node:crypto';
import { networks, payments, script as bscript, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { startBitcoinRegtest } from '../adaptors/bitcoin/local-node/index.js';
import { sendOneAtATime, type DrainKit } from './drain-kit.js';
import { keepAliveFetch } from '../src/platform/http-client.js';

const COIN_SATS = 100_000n;
const FEE_SATS = 1_000n;
const RECIPIENT = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const BLOCK_MS = 1_000;

async function fanOut(regtest: Awaited<ReturnType<typeof startBitcoinRegtest>>, address: string, n: number): Promise<void> {
  for (let left = n; left > 0; left -= 2_000) await regtest.fanOut(address, Math.min(2_000, left), COIN_SATS);
}

export async function bitcoinDrainKit(): Promise<DrainKit> {
  const regtest = await startBitcoinRegtest();
  const miner = setInterval(() => void regtest.mine(1).catch(() => undefined), BLOCK_MS);
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${regtest.url}${path}`);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    family: 'Bitcoin',
    ledgerId: 'btcregtest',
    options: { backend: 'esplora', url: regtest.url, confirmations: 1 },
    vaults: async (service, n) => {
      const { vaultId, address } = await service.registerVault('btcregtest', 'ECDSA');
      await fanOut(regtest, address, n);
      return Array.from({ length: n }, () => vaultId);
    },
    withdrawal: () => ({ recipientAddress: RECIPIENT, amount: '0.0001' }),
    bare: async (n) => {
      const priv = createHash('sha256').update(`bench bare bitcoin ${Date.now()}`).digest();
      const pubkey = ecc.pointFromScalar(priv, true) as Uint8Array;
      const own = payments.p2wpkh({ pubkey, network: networks.regtest });
      await fanOut(regtest, own.address as string, n);
      const coins = await get<{ txid: string; vout: number; value: number }[]>(`/address/${own.address}/utxo`);
      if (coins.length < n) throw new Error(`bare client: ${coins.length} coins, not ${n}`);
      const to = payments.p2wpkh({ address: RECIPIENT, network: networks.regtest }).output as Uint8Array;
      // BIP143's script code of a P2WPKH input is the P2PKH script of its key.
      const scriptCode = payments.p2pkh({ pubkey, network: networks.regtest }).output as Uint8Array;
      const raws = coins.slice(0, n).map((c) => {
        const tx = new Transaction();
        tx.version = 2;
        tx.addInput(Buffer.from(c.txid, 'hex').reverse(), c.vout);
        tx.addOutput(to, BigInt(c.value) - FEE_SATS);
        const hash = tx.hashForWitnessV0(0, scriptCode, BigInt(c.value), Transaction.SIGHASH_ALL);
        tx.setWitness(0, [bscript.signature.encode(ecc.sign(hash, priv), Transaction.SIGHASH_ALL), pubkey]);
        return tx.toHex();
      });
      const height = regtest.node.height;
      // Over the HTTP client the service's adaptors use.
      const http = keepAliveFetch(1);
      const sent = await sendOneAtATime(raws, async (raw) => {
        const res = await http(`${regtest.url}/tx`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: raw });
        if (!res.ok) throw new Error(`bare client: POST /tx ${res.status} ${await res.text()}`);
        await res.text();
      });
      return { height, transactions: n, ...sent, perSecond: n / sent.seconds, note: 'one input, one output each (the withdrawals have a change output)' };
    },
    check: async (ops) => {
      const spent = new Set<string>();
      let inputs = 0;
      let found = 0;
      for (const o of ops) {
        const txid = o.txids[0];
        if (!txid) continue;
        const tx = await get<{ vin: { txid: string; vout: number }[] }>(`/tx/${txid}`).catch(() => undefined);
        if (!tx) continue;
        found++;
        for (const i of tx.vin) {
          inputs++;
          spent.add(`${i.txid}:${i.vout}`);
        }
      }
      return {
        rule: 'coins',
        ok: found === ops.length && spent.size === inputs,
        detail: `${found} of ${ops.length} transactions at the node, ${inputs} inputs, ${spent.size} distinct coins`,
      };
    },
    stop: async () => {
      clearInterval(miner);
      await regtest.stop();
    },
  };
}
