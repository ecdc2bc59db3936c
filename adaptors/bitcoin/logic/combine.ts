import { crypto as bcrypto, script as bscript } from 'bitcoinjs-lib';
import { PermanentLedgerError, VerificationError } from '../../../src/platform/errors.js';
import { isLowS } from '../../../src/ledger/signatures.js';
import type { SignedTx, UnsignedWithdrawal, VerifiedSignature } from '../../../src/ledger/adaptor.js';
import type { BtcContext } from '../context.js';
import { unsignedTx } from './craft.js';
import { inputPreimages } from './preimage.js';
import { sha256d, SIGHASH_ALL } from './sighash.js';
import { bitcoinState } from './state.js';

/**
 * Puts the signatures into the crafted transaction: DER + SIGHASH_ALL, in the witness
 * (P2WPKH), witness plus redeem script (P2SH-P2WPKH) or scriptSig (P2PKH). Rebuilds the
 * transaction from the stored state and recomputes every sighash, so it only ever signs
 * what was crafted: each input's sighash must be its payload's digest and its key the
 * payload's. Each signature was checked when it came in, over that digest and against that
 * key (src/ledger/signatures.ts, the one place signatures are checked), so it is not checked
 * again.
 */
export function combine(ctx: BtcContext, unsigned: UnsignedWithdrawal, signatures: VerifiedSignature[]): SignedTx[] {
  const state = bitcoinState.decode(unsigned.state, { ledgerId: ctx.ledgerId });
  const tx = unsignedTx(ctx, state);
  if (tx.toHex() !== unsigned.txs[0]?.serialized) throw new PermanentLedgerError('stored transaction does not match the stored craft state');
  if (unsigned.payloads.length !== state.inputs.length) throw new PermanentLedgerError('stored payloads do not match the transaction inputs');
  const byPayload = new Map(signatures.map((s) => [s.payloadIndex, s]));
  if (byPayload.size !== signatures.length || signatures.length !== unsigned.payloads.length) {
    throw new VerificationError(`expected one signature for each of ${unsigned.payloads.length} payloads, got ${signatures.length}`, 'signature-count');
  }
  const preimages = inputPreimages(tx, state.inputs);
  // The first payload of each input, looked up once (a search per input is O(n²) at 1,000 inputs).
  const payloadOfInput = new Map<number, number>();
  unsigned.payloads.forEach((p, k) => {
    if (p.txIndex === 0 && !payloadOfInput.has(p.inputIndex)) payloadOfInput.set(p.inputIndex, k);
  });
  state.inputs.forEach((input, i) => {
    const payloadIndex = payloadOfInput.get(i) ?? -1;
    const payload = unsigned.payloads[payloadIndex];
    const digest = sha256d(preimages[i] as Buffer);
    if (!payload || payload.digest !== digest.toString('hex') || payload.publicKey !== input.publicKey) {
      throw new PermanentLedgerError(`payload of input ${i} does not match the transaction`);
    }
    const sig = byPayload.get(payloadIndex);
    if (!sig) throw new VerificationError(`no signature for payload ${payloadIndex}`, 'signature-missing');
    const pubkey = Buffer.from(input.publicKey, 'hex');
    // High-S is non-standard on Bitcoin; src/ledger/signatures.ts stores the low S.
    if (!isLowS(sig.signature)) throw new VerificationError(`signature for input ${i} is not 64 bytes with a low s`, 'malformed-signature');
    const der = bscript.signature.encode(sig.signature, SIGHASH_ALL);
    if (input.format === 'p2pkh') {
      tx.setInputScript(i, bscript.compile([der, pubkey]));
    } else {
      tx.setWitness(i, [der, pubkey]);
      if (input.format === 'p2sh-p2wpkh') {
        const redeem = Buffer.concat([Buffer.from([0x00, 0x14]), bcrypto.hash160(pubkey)]);
        tx.setInputScript(i, bscript.compile([redeem]));
      }
    }
  });
  return [{ txIndex: 0, serialized: tx.toHex(), txid: tx.getId() }];
}
