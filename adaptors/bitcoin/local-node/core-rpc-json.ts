import { revHex, type BcoinCoin, type BcoinTx, type BcoinView } from './bcoin.js';
import { addressOf } from './regtest-node.js';

/**
 * Bitcoin Core's JSON shapes (src/core_write.cpp TxToUniv, ScriptToUniv) for the Core RPC
 * facade. Scripts carry `hex`, `address` and `type`, never `asm` or `desc`: nothing reads them
 * here, and bcoin's assembly text is not Core's.
 */

/** An amount Core prints as a JSON number in BTC with 8 decimals (ValueFromAmount); written by `coreJson`. */
export class Btc {
  constructor(readonly sats: bigint) {}
  text(): string {
    const digits = (this.sats < 0n ? -this.sats : this.sats).toString().padStart(9, '0');
    return `${this.sats < 0n ? '-' : ''}${digits.slice(0, -8)}.${digits.slice(-8)}`;
  }
}

export const btc = (sats: number | bigint): Btc => new Btc(BigInt(sats));

const BTC_MARK = /"@btc:(-?\d+\.\d{8})"/g;

/** JSON text with every `Btc` as Core prints it (`0.00100000`), never through a float. */
export function coreJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v instanceof Btc ? `@btc:${v.text()}` : v)).replace(BTC_MARK, '$1');
}

/** Core's name for a standard output script (Solver's TxoutType), from its bytes. */
function scriptType(s: Buffer): string {
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return 'pubkeyhash';
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'scripthash';
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) return 'witness_v0_keyhash';
  if (s.length === 34 && s[0] === 0x00 && s[1] === 0x20) return 'witness_v0_scripthash';
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) return 'witness_v1_taproot';
  if (s.length > 0 && s[0] === 0x6a) return 'nulldata';
  const v = s[0];
  if (v !== undefined && v >= 0x51 && v <= 0x60 && s[1] === s.length - 2 && s.length >= 4 && s.length <= 42) return 'witness_unknown';
  return 'nonstandard';
}

export function scriptJson(raw: Buffer): Record<string, unknown> {
  const address = addressOf(raw);
  return { hex: raw.toString('hex'), ...(address ? { address } : {}), type: scriptType(raw) };
}

/** The output a spent coin was, as Core's `prevout` (verbosity 3 of getblock, 2 of getrawtransaction). */
function prevoutJson(coin: BcoinCoin): Record<string, unknown> {
  return { generated: coin.coinbase, height: coin.height, value: btc(coin.value), scriptPubKey: scriptJson(coin.script.toRaw()) };
}

/**
 * A transaction as Core's TxToUniv writes it. With `view` (the coins it spent) it carries its
 * `fee` (verbosity 2 and up), with `prevouts` each input's `prevout` too (verbosity 3).
 */
export function txJson(tx: BcoinTx, view?: BcoinView, prevouts = false): Record<string, unknown> {
  let inValue = 0n;
  let allCoins = view !== undefined;
  const vin = tx.inputs.map((input) => {
    const witness = input.witness.items.length ? { txinwitness: input.witness.items.map((w) => w.toString('hex')) } : {};
    if (input.isCoinbase()) return { coinbase: input.script.toRaw().toString('hex'), ...witness, sequence: input.sequence };
    const coin = view?.getCoinFor(input) ?? null;
    if (coin) inValue += BigInt(coin.value);
    else allCoins = false;
    return {
      txid: revHex(input.prevout.hash),
      vout: input.prevout.index,
      scriptSig: { hex: input.script.toRaw().toString('hex') },
      ...witness,
      ...(prevouts && coin ? { prevout: prevoutJson(coin) } : {}),
      sequence: input.sequence,
    };
  });
  const outValue = tx.outputs.reduce((s, o) => s + BigInt(o.value), 0n);
  return {
    txid: tx.txid(),
    hash: tx.wtxid(),
    version: tx.version,
    size: tx.getSize(),
    vsize: tx.getVirtualSize(),
    weight: tx.getWeight(),
    locktime: tx.locktime,
    vin,
    vout: tx.outputs.map((o, n) => ({ value: btc(o.value), n, scriptPubKey: scriptJson(o.script.toRaw()) })),
    ...(allCoins && !tx.isCoinbase() ? { fee: btc(inValue - outValue) } : {}),
    hex: tx.toRaw().toString('hex'),
  };
}
