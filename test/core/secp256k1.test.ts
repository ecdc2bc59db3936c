import { randomBytes } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { secp256k1, wasmSecp256k1 } from '../../src/ledger/secp256k1.js';

/** The secp256k1 the service runs (native where it loads) answers as tiny-secp256k1 does, for good and bad signatures. */
describe('secp256k1 recovery', () => {
  it('loads libsecp256k1 from the prebuilt binary on this platform', () => {
    expect(secp256k1.name).toBe('libsecp256k1');
  });

  it('recovers the same key as tiny-secp256k1, compressed and not, and nothing for the other recovery id', () => {
    for (let i = 0; i < 50; i++) {
      const priv = randomBytes(32);
      const digest = randomBytes(32);
      const { signature, recoveryId } = ecc.signRecoverable(digest, priv);
      const id = recoveryId as 0 | 1;
      for (const compressed of [true, false]) {
        const expected = Buffer.from(ecc.pointFromScalar(priv, compressed) as Uint8Array);
        expect(Buffer.from(secp256k1.recover(digest, signature, id, compressed)!)).toEqual(expected);
        expect(Buffer.from(wasmSecp256k1.recover(digest, signature, id, compressed)!)).toEqual(expected);
      }
      const other = secp256k1.recover(digest, signature, (id ^ 1) as 0 | 1, true);
      const otherWasm = wasmSecp256k1.recover(digest, signature, (id ^ 1) as 0 | 1, true);
      expect(other === null ? null : Buffer.from(other)).toEqual(otherWasm === null ? null : Buffer.from(otherWasm));
      expect(other === null || !Buffer.from(other).equals(Buffer.from(ecc.pointFromScalar(priv, true) as Uint8Array))).toBe(true);
    }
  });

  it('recovers nothing where r is no curve point, like tiny-secp256k1', () => {
    const digest = randomBytes(32);
    // r = 5: no point of the curve has x = 5 (x³ + 7 is no square mod p).
    const sig = new Uint8Array(64);
    sig[31] = 5;
    sig[63] = 1;
    expect(secp256k1.recover(digest, sig, 0, true)).toBeNull();
    expect(wasmSecp256k1.recover(digest, sig, 0, true)).toBeNull();
  });
});
