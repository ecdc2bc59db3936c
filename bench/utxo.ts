/**
 * Bench phase `utxo`: a Bitcoin vault holding thousands of coins on a real bcoin regtest node
 * (in-process, behind the Esplora facade). Times `craft` (listing the coins, Redis claims,
 * coin selection, one sighash payload per input) for a small withdrawal, for one that needs
 * ~750 coins, and for a consolidation (a withdrawal to the vault's own address: 1,000 coins,
 * the default `maxInputs`),
 * plus `combine` of the large one. Each craft is released, so every round sees every coin.
 * The reference is the node's own listing of the coins (bcoin in this process, in JS), timed
 * in the same rounds: every craft lists them once.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import pino from 'pino';
import * as ecc from 'tiny-secp256k1';
import { bitcoinFamily } from '../adaptors/bitcoin/index.js';
import { startBitcoinRegtest } from '../adaptors/bitcoin/local-node/index.js';
import type { LedgerAdaptor, UnsignedWithdrawal, VerifiedSignature, WithdrawalIntent } from '../src/ledger/adaptor.js';
import { toCustodyKeyId, type PublicKey } from '../src/ledger/public-key.js';
import { Reservations } from '../src/ledger/reservations.js';
import { verifySignature } from '../src/ledger/signatures.js';
import { keepAliveFetch } from '../src/platform/http-client.js';
import { r1 } from './stats.js';

export interface UtxoCase {
  inputs: number;
  vbytes: number;
  msP50: number;
  msMax: number;
}

export interface UtxoFigures {
  utxos: number;
  rounds: number;
  small: UtxoCase;
  large: UtxoCase;
  consolidate: UtxoCase;
  combineLargeMsP50: number;
  /** The node's own share: a bare GET /address/:a/utxo of the same 2,000 coins, timed in the same rounds. */
  listingMsP50: number;
}

const BTC = { symbol: 'BTC', decimals: 8, native: true };
const COIN_SATS = 20_000n;
const RECIPIENT = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;

function signAll(unsigned: UnsignedWithdrawal, priv: Uint8Array, publicKey: PublicKey): VerifiedSignature[] {
  return unsigned.payloads.map((p, payloadIndex) => {
    const sig = ecc.sign(Buffer.from(p.digest, 'hex'), priv);
    const { signature, recoveryId } = verifySignature(p.digest, Buffer.from(sig).toString('hex'), 0, publicKey);
    return { payloadIndex, signature, recoveryId };
  });
}

/** Virtual size the crafted transaction will have once signed (P2WPKH: 27.25 vbytes of witness per input, high-R signatures). */
function signedVbytes(unsigned: UnsignedWithdrawal): number {
  const base = (unsigned.txs[0]?.serialized.length ?? 0) / 2;
  return Math.ceil((base * 4 + 2 + unsigned.payloads.length * 109) / 4);
}

export async function utxoBench(redisUrl: string, prefix: string, sizes: { utxos: number; rounds: number }, log: (m: string) => void): Promise<UtxoFigures> {
  const regtest = await startBitcoinRegtest();
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    const reservations = new Reservations(redis, `${prefix}:`);
    const options = bitcoinFamily.optionsSchema.parse({ backend: 'esplora', url: regtest.url });
    const adaptor: LedgerAdaptor = bitcoinFamily.create('btcregtest', options, { logger: pino({ level: 'silent' }), fetch: keepAliveFetch(), reservations });
    const priv = Uint8Array.from(Buffer.alloc(32, 7));
    const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(ecc.pointFromScalar(priv, true) as Uint8Array) };
    const keyId = toCustodyKeyId(publicKey);
    const address = adaptor.addressFromPublicKey(publicKey, 'p2wpkh');
    const vault = { vaultId: 'bench-utxo', addresses: [{ address, publicKey, keyId }], changeAddress: address };
    log(`utxo: funding one p2wpkh address with ${sizes.utxos} coins of ${COIN_SATS} sat`);
    for (let left = sizes.utxos; left > 0; left -= 2_000) await regtest.fanOut(address, Math.min(2_000, left), COIN_SATS);

    let seq = 0;
    const intent = (recipientAddress: string, amount: bigint): WithdrawalIntent => ({
      reference: `bench-utxo-${seq++}`,
      recipientAddress,
      asset: BTC,
      amount,
      fee: '2',
    });
    const total = COIN_SATS * BigInt(sizes.utxos);
    const cases = {
      small: () => intent(RECIPIENT, 100_000n),
      large: () => intent(RECIPIENT, (total * 3n) / 8n),
      // A withdrawal to the vault's own address: as many coins as fit, one output.
      consolidate: () => intent(address, COIN_SATS),
    };
    const times: Record<keyof typeof cases, number[]> = { small: [], large: [], consolidate: [] };
    const last: Partial<Record<keyof typeof cases, UnsignedWithdrawal>> = {};
    const combineMs: number[] = [];
    const listingMs: number[] = [];
    // Round 0 warms the JIT and the connections; it is not counted.
    for (let round = 0; round <= sizes.rounds; round++) {
      const l0 = performance.now();
      const listed = (await (await fetch(`${regtest.url}/address/${address}/utxo`)).json()) as unknown[];
      if (round > 0) listingMs.push(performance.now() - l0);
      if (listed.length !== sizes.utxos) throw new Error(`the node lists ${listed.length} coins, not ${sizes.utxos}`);
      for (const name of Object.keys(cases) as (keyof typeof cases)[]) {
        const it = cases[name]();
        const started = performance.now();
        const unsigned = await adaptor.craft(vault, it);
        const ms = performance.now() - started;
        if (round > 0) times[name].push(ms);
        last[name] = unsigned;
        if (name === 'large') {
          const sigs = signAll(unsigned, priv, publicKey);
          const c0 = performance.now();
          adaptor.combine(unsigned, sigs);
          if (round > 0) combineMs.push(performance.now() - c0);
        }
        await adaptor.release(unsigned, it.reference);
      }
    }
    const summary = (name: keyof typeof cases): UtxoCase => {
      const u = last[name] as UnsignedWithdrawal;
      return { inputs: u.payloads.length, vbytes: signedVbytes(u), msP50: r1(median(times[name])), msMax: r1(Math.max(...times[name])) };
    };
    const figures = {
      utxos: sizes.utxos,
      rounds: sizes.rounds,
      small: summary('small'),
      large: summary('large'),
      consolidate: summary('consolidate'),
      combineLargeMsP50: r1(median(combineMs)),
      listingMsP50: r1(median(listingMs)),
    };
    log(`utxo: ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    redis.disconnect();
    await regtest.stop();
  }
}
