import { randomBytes } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { VerificationError } from '../../src/platform/errors.js';
import { parsePublicKey, toCustodyKeyId } from '../../src/ledger/public-key.js';
import { otherS, verifySecp256k1 } from '../../src/ledger/signatures.js';

// A real completed custody operation (custody-facts.md).
const KEY =
  '3056301006072A8648CE3D020106052B8104000A0342000471A50AA19C7907F113A39409C9BB39F612E8A23223CDE454F17F91FCFFA2E56981411D2A6535754E7E0CAC511A3E4B5D7CE8150F316A37F5E2C7EF51183D805C';
const DIGEST = Buffer.from('d0e5595ac689a1df9f0b13443e0efd876eeb762d50a05f7179b1506bfccfeec5', 'hex');
const SIG = '1FDDA3173D3AC20E7F7DDBA292A984C70FDCB7E4556BBE1A1433CA059CECB968423AB79E50392D98AA55D066DFF2E9351318F7E9AF375368F0B1DB1259349853';

const key = parsePublicKey(KEY, 'secp256k1');

function highS(sigHex: string): string {
  return sigHex.slice(0, 64) + Buffer.from(otherS(Buffer.from(sigHex, 'hex')).subarray(32)).toString('hex');
}

describe('secp256k1 callback signatures', () => {
  it('verifies the custody-facts vector with v=1, and v=1 is the recovery id', () => {
    const r = verifySecp256k1(DIGEST, SIG, 1, key);
    expect(r.recoveryId).toBe(1);
    expect(Buffer.from(r.signature).toString('hex')).toBe(SIG.toLowerCase());
  });

  it('accepts legacy v 27/28 and a wrong hint, and still finds the true recovery id', () => {
    for (const v of [0, 27, 28]) expect(verifySecp256k1(DIGEST, SIG, v, key).recoveryId).toBe(1);
  });

  it('normalises a high-S signature to low-S and flips the recovery id', () => {
    const r = verifySecp256k1(DIGEST, highS(SIG), 0, key);
    expect(Buffer.from(r.signature).toString('hex')).toBe(SIG.toLowerCase());
    expect(r.recoveryId).toBe(1);
  });

  it('rejects a corrupted signature, another digest, another key, bad v and malformed input', () => {
    const corrupted = `${SIG.slice(0, 10)}${SIG[10] === 'A' ? 'B' : 'A'}${SIG.slice(11)}`;
    const other = parsePublicKey(toCustodyKeyId({ scheme: 'secp256k1', bytes: ecc.pointFromScalar(randomBytes(32))! }), 'secp256k1');
    const cases: [() => unknown, string][] = [
      [() => verifySecp256k1(DIGEST, corrupted, 1, key), 'bad-signature'],
      [() => verifySecp256k1(Buffer.alloc(32, 1), SIG, 1, key), 'bad-signature'],
      [() => verifySecp256k1(DIGEST, SIG, 1, other), 'bad-signature'],
      [() => verifySecp256k1(DIGEST, SIG, 2, key), 'malformed-v'],
      [() => verifySecp256k1(DIGEST, SIG.slice(2), 1, key), 'malformed-signature'],
      [() => verifySecp256k1(DIGEST, '00'.repeat(64), 1, key), 'malformed-signature'],
    ];
    for (const [fn, reason] of cases) {
      try {
        fn();
        expect.fail(`expected ${reason}`);
      } catch (e) {
        expect(e).toBeInstanceOf(VerificationError);
        expect((e as VerificationError).reason).toBe(reason);
      }
    }
  });

  it('round-trips custody key ids', () => {
    expect(toCustodyKeyId(key)).toBe(KEY);
  });
});

describe('secp256k1 signatures whose r is no curve point', () => {
  it('fail verification instead of throwing a library error', () => {
    // r = 5: no point on secp256k1 has x = 5, so recovery is impossible for either id.
    const sig = `${'0'.repeat(63)}5${SIG.slice(64)}`;
    try {
      verifySecp256k1(DIGEST, sig, 0, key);
      expect.fail('expected a verification error');
    } catch (e) {
      expect(e).toBeInstanceOf(VerificationError);
      expect((e as VerificationError).reason).toBe('bad-signature');
    }
  });
});
