import { randomBytes } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { VerificationError } from '../../src/platform/errors.js';
import { parsePublicKey, toCustodyKeyId } from '../../src/ledger/public-key.js';
import { isLowS, otherS, SECP256K1_N, verifySecp256k1, verifySignature } from '../../src/ledger/signatures.js';

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

  it('refuses each bound of r and s, another digest length and every v but 0, 1, 27 and 28, naming the reason', () => {
    const hex = (n: bigint) => n.toString(16).padStart(64, '0');
    const [r, sv] = [SIG.slice(0, 64), SIG.slice(64)];
    const reasonOf = (fn: () => unknown) => {
      try {
        fn();
        return 'verified';
      } catch (e) {
        expect(e).toBeInstanceOf(VerificationError);
        return (e as VerificationError).reason;
      }
    };
    expect(reasonOf(() => verifySecp256k1(DIGEST, `${hex(0n)}${sv}`, 1, key))).toBe('malformed-signature');
    expect(reasonOf(() => verifySecp256k1(DIGEST, `${r}${hex(0n)}`, 1, key))).toBe('malformed-signature');
    expect(reasonOf(() => verifySecp256k1(DIGEST, `${hex(SECP256K1_N)}${sv}`, 1, key))).toBe('malformed-signature');
    expect(reasonOf(() => verifySecp256k1(DIGEST, `${r}${hex(SECP256K1_N)}`, 1, key))).toBe('malformed-signature');
    // One below the order is in range: it is checked, and does not verify.
    expect(reasonOf(() => verifySecp256k1(DIGEST, `${hex(SECP256K1_N - 1n)}${sv}`, 1, key))).toBe('bad-signature');
    expect(reasonOf(() => verifySecp256k1(DIGEST.subarray(0, 31), SIG, 1, key))).toBe('malformed-digest');
    expect(reasonOf(() => verifySecp256k1(Buffer.concat([DIGEST, Buffer.alloc(1)]), SIG, 1, key))).toBe('malformed-digest');
    for (const v of [-1, 2, 26, 29, 0.5, Number.NaN])
      expect(
        reasonOf(() => verifySecp256k1(DIGEST, SIG, v, key)),
        String(v),
      ).toBe('malformed-v');
    for (const sig of [`${SIG}00`, SIG.slice(0, 126), `0x${SIG.slice(2)}zz`, ` ${SIG}`, `${SIG} `, `0X${SIG}`]) {
      expect(
        reasonOf(() => verifySecp256k1(DIGEST, sig, 1, key)),
        sig,
      ).toBe('malformed-signature');
    }
    expect(reasonOf(() => verifySecp256k1(DIGEST, 42 as unknown as string, 1, key))).toBe('malformed-signature');
    // Not a string, even one that reads as the signature.
    expect(reasonOf(() => verifySecp256k1(DIGEST, { toString: () => SIG } as unknown as string, 1, key))).toBe('malformed-signature');
    // 0x-prefixed hex is the same signature.
    expect(verifySecp256k1(DIGEST, `0x${SIG}`, 1, key).recoveryId).toBe(1);
  });

  it('tells low S from high S at half the order, and only of 64 bytes', () => {
    const withS = (s: bigint) => Uint8Array.from(Buffer.from(`${SIG.slice(0, 64)}${s.toString(16).padStart(64, '0')}`, 'hex'));
    const half = SECP256K1_N >> 1n;
    expect(isLowS(withS(half))).toBe(true);
    expect(isLowS(withS(half + 1n))).toBe(false);
    expect(isLowS(withS(1n))).toBe(true);
    expect(isLowS(Buffer.from(SIG, 'hex'))).toBe(true);
    expect(isLowS(Buffer.from(highS(SIG), 'hex'))).toBe(false);
    expect(isLowS(withS(1n).subarray(0, 63))).toBe(false);
    // The twin keeps r and takes N - s, padded to 32 bytes.
    expect(Buffer.from(otherS(withS(SECP256K1_N - 1n))).toString('hex')).toBe(`${SIG.slice(0, 64).toLowerCase()}${'0'.repeat(63)}1`);
    expect(Buffer.from(otherS(otherS(Buffer.from(SIG, 'hex')))).toString('hex')).toBe(SIG.toLowerCase());
  });

  it('keeps an S of exactly half the order, the highest low S, as it is', () => {
    // Any r that is a curve point's x, any S and digest are a valid signature of the key they recover to.
    const half = SECP256K1_N >> 1n;
    const sig = Uint8Array.from(Buffer.from(`${SIG.slice(0, 64)}${half.toString(16).padStart(64, '0')}`, 'hex'));
    const signer = ecc.recover(DIGEST, sig, 0, true)!;
    const r = verifySecp256k1(DIGEST, Buffer.from(sig).toString('hex'), 0, { scheme: 'secp256k1', bytes: signer });
    expect({ recoveryId: r.recoveryId, signature: Buffer.from(r.signature).toString('hex') }).toEqual({
      recoveryId: 0,
      signature: Buffer.from(sig).toString('hex'),
    });
  });

  it('says what was refused', () => {
    expect(() =>
      verifySecp256k1(DIGEST, SIG, 1, parsePublicKey(toCustodyKeyId({ scheme: 'secp256k1', bytes: ecc.pointFromScalar(Buffer.alloc(32, 7))! }), 'secp256k1')),
    ).toThrowError('signature does not verify against the stored key and digest');
    expect(() => verifySecp256k1(DIGEST, SIG, 5, key)).toThrowError('v must be 0, 1, 27 or 28, got 5');
    expect(() => verifySecp256k1(DIGEST, 'ab', 1, key)).toThrowError('signature must be 64 bytes r||s in hex');
    expect(() => verifySecp256k1(DIGEST, '00'.repeat(64), 1, key)).toThrowError('signature r or s out of range');
    expect(() => verifySecp256k1(DIGEST.subarray(1), SIG, 1, key)).toThrowError('digest must be 32 bytes');
  });

  it('verifies through verifySignature by the key scheme, v 0 when none is given', () => {
    const r = verifySignature(DIGEST.toString('hex'), SIG, undefined, key);
    expect({ recoveryId: r.recoveryId, signature: Buffer.from(r.signature).toString('hex') }).toEqual({ recoveryId: 1, signature: SIG.toLowerCase() });
    expect(verifySignature(DIGEST.toString('hex'), highS(SIG), 28, key).recoveryId).toBe(1);
    expect(() => verifySignature(DIGEST.toString('hex'), SIG, 3, key)).toThrowError(VerificationError);
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
