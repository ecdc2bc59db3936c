import { address as baddress, networks, Transaction } from 'bitcoinjs-lib';
import pino from 'pino';
import { bitcoinFamily } from './index.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { startBitcoinRegtest } from './local-node/index.js';
import { testRedis } from '../../test/helpers/redis.js';
import { describeConformance } from '../../test/conformance/conformance.js';
import { secp256k1Signer } from '../../test/conformance/signers.js';

const network = networks.regtest;

// The same suite through each back end: the Esplora facade and the Core RPC facade over one kind of node.
for (const [backend, facade] of [
  ['esplora', 'the Esplora facade'],
  ['core', 'the Core RPC facade'],
] as const) {
  describeConformance(
    `bitcoin (btcregtest on a bcoin regtest node behind ${facade})`,
    async () => {
      const regtest = await startBitcoinRegtest();
      const { redis, prefix } = testRedis();
      const url = backend === 'core' ? regtest.coreRpcUrl : regtest.url;
      const adaptor = bitcoinFamily.create('btcregtest', bitcoinFamily.optionsSchema.parse({ backend, url }), {
        logger: pino({ level: 'silent' }),
        fetch,
        reservations: new Reservations(redis, prefix),
      });

      /** A previous output as the node has it: the raw transaction decoded with bitcoinjs. */
      const prevout = async (txid: string, vout: number): Promise<{ address: string; value: bigint }> => {
        const res = await fetch(`${regtest.url}/tx/${txid}/hex`);
        if (!res.ok) throw new Error(`node does not know ${txid}: ${res.status} ${await res.text()}`);
        const out = Transaction.fromHex((await res.text()).trim()).outs[vout];
        if (!out) throw new Error(`${txid} has no output ${vout}`);
        return { address: baddress.fromOutputScript(out.script, network), value: out.value };
      };

      return {
        adaptor,
        signer: secp256k1Signer(),
        foreignAddresses: ['0x8240Fd14931292B85C850514c8a4eBd35E56EDA4', 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7'],
        // The faucet pays in sats and mines a block, so the balance shows confirmed.
        fund: async (address, _asset, amount) => {
          await regtest.faucet(address, amount);
        },
        recipient: async () => adaptor.addressFromPublicKey(secp256k1Signer().publicKey),
        decode: async (signed) => {
          const tx = Transaction.fromHex(signed.serialized);
          const spent = await Promise.all(tx.ins.map((i) => prevout(Buffer.from(i.hash).reverse().toString('hex'), i.index)));
          const senders = [...new Set(spent.map((p) => p.address))];
          if (senders.length !== 1) throw new Error(`inputs spend from ${senders.length} addresses: ${senders.join(', ')}`);
          const from = senders[0] as string;
          const outs = tx.outs.map((o) => ({ address: baddress.fromOutputScript(o.script, network), value: o.value }));
          // Change goes back to the vault's address; the payment is the one output that does not.
          const payments = outs.filter((o) => o.address !== from);
          if (payments.length !== 1) throw new Error(`expected one payment output, got ${payments.length}`);
          const inSum = spent.reduce((s, p) => s + p.value, 0n);
          const outSum = outs.reduce((s, o) => s + o.value, 0n);
          const [pay] = payments as [{ address: string; value: bigint }];
          return { from, to: pay.address, asset: 'BTC', amount: pay.value, fee: inSum - outSum };
        },
        settle: async () => {
          await regtest.mine(1);
        },
        stop: async () => {
          redis.disconnect();
          await regtest.stop();
        },
      };
    },
    { tokens: false },
  );
}
