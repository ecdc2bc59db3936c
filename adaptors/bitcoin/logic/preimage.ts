import { crypto as bcrypto, type Transaction } from 'bitcoinjs-lib';
import type { BitcoinState } from './state.js';
import { bip143Preimage, bip143Shared, legacyPreimages, p2pkhScript } from './sighash.js';

type StateInput = BitcoinState['inputs'][number];

/** P2WPKH's BIP143 scriptCode and P2PKH's prevout script are the same P2PKH script of the key hash. */
const keyScript = (input: StateInput): Buffer => p2pkhScript(bcrypto.hash160(Buffer.from(input.publicKey, 'hex')));

/** Every input's sighash preimage (BIP143 for the SegWit types, legacy for P2PKH), the parts the inputs share computed once (linear in the inputs for SegWit). */
export function inputPreimages(tx: Transaction, inputs: StateInput[]): Buffer[] {
  const shared = inputs.some((i) => i.format !== 'p2pkh') ? bip143Shared(tx) : undefined;
  const legacy = inputs.some((i) => i.format === 'p2pkh') ? legacyPreimages(tx) : undefined;
  return inputs.map((input, i) => {
    const script = keyScript(input);
    return legacy && input.format === 'p2pkh' ? legacy(i, script) : bip143Preimage(tx, i, script, BigInt(input.value), shared);
  });
}
