import { crypto as bcrypto, type Transaction } from 'bitcoinjs-lib';
import type { CraftState } from './state.js';
import { bip143Preimage, legacyPreimage, p2pkhScript } from './sighash.js';

/** The sighash preimage of input `index`: BIP143 for the SegWit types, legacy for P2PKH. */
export function inputPreimage(tx: Transaction, index: number, input: CraftState['inputs'][number]): Buffer {
  const keyHash = bcrypto.hash160(Buffer.from(input.publicKey, 'hex'));
  // P2WPKH's BIP143 scriptCode and P2PKH's prevout script are the same P2PKH script.
  const script = p2pkhScript(keyHash);
  return input.format === 'p2pkh' ? legacyPreimage(tx, index, script) : bip143Preimage(tx, index, script, BigInt(input.value));
}
