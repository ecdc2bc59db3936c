/**
 * The pipeline drain on Solana (bench/drain-kit.ts): LiteSVM in this process behind its
 * JSON-RPC facade. A vault's durable nonce carries one withdrawal at a time, so the drain
 * takes one withdrawal from each of `n` vaults, each vault's nonce account made beforehand by
 * a withdrawal of its own through the service (not measured). The bare client holds `n` keys
 * with a nonce account each and sends `n` pre-signed transfers, each advancing its key's
 * nonce, through the same facade. Ordering rule: every withdrawal's transaction executed on
 * the node, one per vault (a transaction whose nonce was already advanced cannot).
 */
import { sign } from 'node:crypto';
import { getBase58Decoder, type Address } from '@solana/kit';
import { nonceAccountAddress } from '../adaptors/solana/index.js';
import { newLocalKey } from '../adaptors/solana/local-node/keys.js';
import { startLocalSolanaNode } from '../adaptors/solana/local-node/index.js';
import { NONCE_ACCOUNT_SPACE } from '../adaptors/solana/logic/accounts.js';
import { nonceSetup, solTransfer } from '../adaptors/solana/logic/instructions.js';
import { compileMessage, type Lifetime } from '../adaptors/solana/logic/message.js';
import { sendOneAtATime, type DrainKit } from './drain-kit.js';
import { keepAliveFetch, type HttpFetch } from '../src/platform/http-client.js';

const SOL = 1_000_000_000n;
/** Above the rent-exempt minimum of an 80-byte nonce account (1,447,680 lamports). */
const NONCE_ACCOUNT_FUNDING = '0.0015';
/** Nonce setups run in waves: each is crafted with a recent blockhash, valid for 150 slots (one slot per executed transaction here). */
const SETUP_WAVE = 64;

export async function solanaDrainKit(): Promise<DrainKit> {
  const node = await startLocalSolanaNode();
  const recipientKey = newLocalKey();
  await node.fund(recipientKey.address, 'SOL', SOL);
  const recipient = recipientKey.address as string;
  /** Vaults registered, and how many of them have their nonce account. */
  const ready: { vaultId: string; address: string }[] = [];
  let prepared = 0;
  const rpc = async (method: string, params: unknown[], through: HttpFetch = fetch) => {
    const res = await through(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  /** A signed wire transaction (base64) of one signer: the message signed, its signature in the one slot. */
  const signed = (key: ReturnType<typeof newLocalKey>, lifetime: Lifetime, instructions: Parameters<typeof compileMessage>[2]) => {
    const { message, unsignedTx } = compileMessage(key.address, lifetime, instructions);
    const wire = Buffer.from(unsignedTx);
    // One signature: its count (compact-u16 1), then its 64 bytes, then the message.
    sign(null, message, key.private).copy(wire, 1);
    return wire.toString('base64');
  };
  const nonceOf = (account: string) => getBase58Decoder().decode((node.svm.getAccount(account as Address) as { data: Uint8Array }).data.subarray(40, 72));
  return {
    family: 'Solana',
    ledgerId: 'solanadev',
    options: { rpcUrl: node.url, tokens: [node.usdc], confirmations: 1 },
    vaults: async (service, n) => {
      // A vault whose withdrawal is confirmed has its nonce advanced: the next drain takes the same vaults again.
      for (let i = ready.length; i < n; i += 32) {
        ready.push(...(await Promise.all(Array.from({ length: Math.min(32, n - i) }, () => service.registerVault('solanadev', 'EDDSA')))));
      }
      const fresh = ready.slice(prepared, n);
      for (const v of fresh) await node.fund(v.address, 'SOL', SOL / 10n);
      if (fresh.length) service.log(`solana: ${fresh.length} vaults funded; their durable nonce accounts made through the service, ${SETUP_WAVE} at a time`);
      for (let i = 0; i < fresh.length; i += SETUP_WAVE) {
        const ids = await Promise.all(
          fresh.slice(i, i + SETUP_WAVE).map(async (v) =>
            service.withdraw(v.vaultId, {
              recipientAddress: await nonceAccountAddress(v.address),
              amount: NONCE_ACCOUNT_FUNDING,
              description: 'nonce account',
            }),
          ),
        );
        await service.confirmed(ids);
      }
      prepared = Math.max(prepared, n);
      return ready.slice(0, n).map((v) => v.vaultId);
    },
    withdrawal: () => ({ recipientAddress: recipient, amount: '0.001' }),
    bare: async (n) => {
      const rent = BigInt(node.svm.minimumBalanceForRentExemption(BigInt(NONCE_ACCOUNT_SPACE)));
      const keys = Array.from({ length: n }, () => newLocalKey());
      for (const k of keys) {
        await node.fund(k.address, 'SOL', SOL / 10n);
        const setup = signed(
          k,
          { kind: 'blockhash', blockhash: node.svm.latestBlockhash(), lastValidBlockHeight: 0 },
          nonceSetup(k.address, await nonceAccountAddress(k.address), rent),
        );
        await rpc('sendTransaction', [setup, { encoding: 'base64' }]);
      }
      const raws: string[] = [];
      for (const k of keys) {
        const nonceAccount = await nonceAccountAddress(k.address);
        raws.push(signed(k, { kind: 'nonce', nonce: nonceOf(nonceAccount), nonceAccount }, [solTransfer(k.address, recipient, 1_000_000n)]));
      }
      const height = Number(await rpc('getSlot', []));
      // Over the HTTP client the service's adaptors use.
      const http = keepAliveFetch(1);
      const sent = await sendOneAtATime(raws, async (raw) => void (await rpc('sendTransaction', [raw, { encoding: 'base64' }], http)));
      return { height, transactions: n, ...sent, perSecond: n / sent.seconds, note: 'no compute-budget instructions (the withdrawals have them)' };
    },
    check: async (ops) => {
      const executed = new Set(node.facade.executed());
      const landed = ops.filter((o) => o.txids[0] && executed.has(o.txids[0]));
      const vaults = new Set(landed.map((o) => o.vaultId));
      return {
        rule: 'durable nonces',
        ok: landed.length === ops.length && vaults.size === ops.length,
        detail: `${landed.length} of ${ops.length} executed, from ${vaults.size} vaults, one nonce each`,
      };
    },
    stop: () => node.stop(),
  };
}
