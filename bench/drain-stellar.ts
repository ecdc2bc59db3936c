/**
 * The pipeline drain on Stellar (bench/drain-kit.ts): the in-repo ledger simulator behind its
 * Horizon facade, in this process. One vault account pays 1 XLM per withdrawal to an existing
 * account; the bare client is another account sending as many pre-signed payments, sequence
 * after sequence, through the same facade. Ordering rule: the withdrawals carry the sequence
 * numbers s+1..s+n of the vault account, which the node now holds at s+n, and the node has
 * every one of them.
 */
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { startStellarLedger } from '../adaptors/stellar/local-node/index.js';
import { stellarState } from '../adaptors/stellar/logic/state.js';
import { sendOneAtATime, type DrainKit } from './drain-kit.js';
import { keepAliveFetch } from '../src/platform/http-client.js';

export async function stellarDrainKit(): Promise<DrainKit> {
  const sim = await startStellarLedger();
  const recipient = Keypair.random().publicKey();
  await sim.fund(recipient, '10');
  let vaultAddress = '';
  // The bare client's sends go over the HTTP client the service's adaptors use.
  const http = keepAliveFetch(1);
  const submit = async (envelope: string) => {
    const res = await http(`${sim.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tx: envelope }).toString(),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`bare client: POST /transactions ${res.status} ${text.slice(0, 300)}`);
  };
  return {
    family: 'Stellar',
    ledgerId: 'stellardev',
    options: { horizonUrl: sim.url, networkPassphrase: sim.passphrase },
    vaults: async (service, n) => {
      const { vaultId, address } = await service.registerVault('stellardev', 'EDDSA');
      await sim.fund(address, String(2 * n + 100));
      vaultAddress = address;
      return Array.from({ length: n }, () => vaultId);
    },
    withdrawal: () => ({ recipientAddress: recipient, amount: '1' }),
    bare: async (n) => {
      const keypair = Keypair.random();
      await sim.fund(keypair.publicKey(), String(2 * n + 100));
      const account = new Account(keypair.publicKey(), String(sim.account(keypair.publicKey())?.sequence ?? 0n));
      const envelopes: string[] = [];
      for (let i = 0; i < n; i++) {
        const tx = new TransactionBuilder(account, { fee: '100', networkPassphrase: sim.passphrase })
          .addOperation(Operation.payment({ destination: recipient, asset: Asset.native(), amount: '1' }))
          .setTimeout(0)
          .build();
        tx.sign(keypair);
        envelopes.push(tx.toEnvelope().toXDR('base64'));
      }
      const root = (await (await fetch(`${sim.url}/`)).json()) as { core_latest_ledger: number };
      const sent = await sendOneAtATime(envelopes, submit);
      return { height: root.core_latest_ledger, transactions: n, ...sent, perSecond: n / sent.seconds, note: 'no time bounds (the withdrawals have them)' };
    },
    check: async (ops) => {
      const sequences = ops.map((o) => BigInt(stellarState.decode(o.unsigned.state).sequence)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const first = sequences[0] ?? 0n;
      const contiguous = sequences.every((s, i) => s === first + BigInt(i));
      const held = sim.account(vaultAddress)?.sequence;
      let found = 0;
      for (const o of ops) if (o.txids[0] && (await fetch(`${sim.url}/transactions/${o.txids[0]}`).then((r) => (r.body?.cancel(), r.ok)))) found++;
      return {
        rule: 'sequences',
        ok: contiguous && sequences.length === ops.length && held === sequences.at(-1) && found === ops.length,
        detail: `sequences s+1..s+${sequences.length} ${contiguous ? 'contiguous' : 'with a gap'}, the account at s+${held === undefined ? '?' : held - first + 1n}, ${found} of ${ops.length} transactions at the node`,
      };
    },
    stop: () => sim.stop(),
  };
}
