import { describe, expect, it } from 'vitest';
import { VerificationError } from '../../src/platform/errors.js';
import { parsePublicKey, publicKeyHex, storedPublicKey, toCustodyKeyId } from '../../src/ledger/public-key.js';
import { Ed25519Keys, verifyEd25519, verifySignature } from '../../src/ledger/signatures.js';

/** RFC 8032 section 7.1, TEST 1, 2, 3 and SHA(abc): public key, message, signature. */
const VECTORS = [
  {
    name: 'TEST 1 (empty message)',
    key: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2 (one byte)',
    key: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    name: 'TEST 3 (two bytes)',
    key: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature: '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
  {
    name: 'TEST SHA(abc) (64 bytes)',
    key: 'ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf',
    message: 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    signature: 'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704',
  },
];

/** The order of ed25519's base point. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** `hex` with bit `bit` (0 = lowest of the first byte) flipped. */
function flip(text: string, bit: number): string {
  const b = bytes(text);
  b[bit >> 3] = (b[bit >> 3] as number) ^ (1 << (bit & 7));
  return hex(b);
}

/** A little-endian 32-byte scalar, as ed25519 encodes S. */
const leToBig = (b: Uint8Array): bigint => BigInt(`0x${hex(Uint8Array.from(b).reverse()) || '0'}`);
const bigToLe = (n: bigint): Uint8Array => bytes(n.toString(16).padStart(64, '0')).reverse();

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(VerificationError);
    expect((e as VerificationError).status).toBe(400);
    expect((e as VerificationError).errCode).toBe('ERR_VERIFICATION_FAILED');
    return (e as VerificationError).reason;
  }
  return expect.fail('the signature was accepted');
}

describe('ed25519 signatures (RFC 8032 test vectors)', () => {
  for (const v of VECTORS) {
    describe(v.name, () => {
      const key = parsePublicKey(v.key, 'ed25519');

      it('verifies, with the key raw, as DER SPKI or as stored, and returns the signature as given', () => {
        const spki = `302a300506032b6570032100${v.key}`;
        for (const k of [key, parsePublicKey(v.key.toUpperCase(), 'ed25519'), parsePublicKey(spki, 'ed25519'), storedPublicKey(publicKeyHex(key), 'ed25519')]) {
          expect(publicKeyHex(k)).toBe(v.key);
          const r = verifyEd25519(bytes(v.message), v.signature, k);
          expect(hex(r.signature)).toBe(v.signature);
          expect(r.recoveryId).toBe(0);
        }
        expect(toCustodyKeyId(key)).toBe(v.key.toUpperCase());
        expect(hex(verifySignature(v.message, v.signature.toUpperCase(), undefined, key).signature)).toBe(v.signature);
      });

      it('refuses the signature with one bit flipped, in R and in S', () => {
        for (const bit of [0, 7, 255, 256, 300, 500]) {
          expect(refusal(() => verifyEd25519(bytes(v.message), flip(v.signature, bit), key))).toBe('bad-signature');
        }
        expect(() => verifyEd25519(bytes(v.message), flip(v.signature, 0), key)).toThrowError(
          'ed25519 signature does not verify against the stored key and digest',
        );
      });

      it('refuses another message: one bit flipped, or one byte more', () => {
        const others = v.message === '' ? ['00', '01'] : [flip(v.message, 0), flip(v.message, v.message.length * 4 - 1), `${v.message}00`];
        for (const m of others) expect(refusal(() => verifySignature(m, v.signature, undefined, key))).toBe('bad-signature');
      });

      it('refuses another key: one bit flipped', () => {
        for (const bit of [0, 100, 254]) {
          const other = parsePublicKey(flip(v.key, bit), 'ed25519');
          expect(refusal(() => verifyEd25519(bytes(v.message), v.signature, other))).toBe('bad-signature');
        }
      });

      it('refuses the non-canonical twin S + L, which verifies the same equation', () => {
        const sig = bytes(v.signature);
        const s = leToBig(sig.subarray(32));
        expect(s < L).toBe(true);
        const twin = new Uint8Array(64);
        twin.set(sig.subarray(0, 32), 0);
        twin.set(bigToLe(s + L), 32);
        expect(refusal(() => verifyEd25519(bytes(v.message), hex(twin), key))).toBe('bad-signature');
      });
    });
  }

  it('refuses signatures that are not 64 bytes of hex as malformed', () => {
    const v = VECTORS[1]!;
    const key = parsePublicKey(v.key, 'ed25519');
    for (const sig of [v.signature.slice(2), `${v.signature}00`, `${v.signature.slice(0, -1)}g`, '']) {
      expect(refusal(() => verifyEd25519(bytes(v.message), sig, key))).toBe('malformed-signature');
    }
  });

  it('parses only 32-byte keys or their DER SPKI form', () => {
    expect(() => parsePublicKey('ab'.repeat(31), 'ed25519')).toThrow(/32 bytes/);
    expect(() => parsePublicKey('ab'.repeat(33), 'ed25519')).toThrow(/32 bytes/);
    expect(() => parsePublicKey(`302a300506032b6570032100${'ab'.repeat(31)}`, 'ed25519')).toThrow(/32 bytes/);
  });

  it('with the key objects kept: the same answers, each key its own, across keys that differ in one bit', () => {
    const keys = new Ed25519Keys();
    for (const v of VECTORS) {
      const key = parsePublicKey(v.key, 'ed25519');
      for (let i = 0; i < 2; i++) {
        expect(hex(verifyEd25519(bytes(v.message), v.signature, key, keys).signature)).toBe(v.signature);
        expect(hex(verifySignature(v.message, v.signature, undefined, key, keys).signature)).toBe(v.signature);
        expect(refusal(() => verifyEd25519(bytes(v.message), flip(v.signature, 300), key, keys))).toBe('bad-signature');
      }
      for (const bit of [0, 100, 254]) {
        const other = parsePublicKey(flip(v.key, bit), 'ed25519');
        expect(refusal(() => verifyEd25519(bytes(v.message), v.signature, other, keys))).toBe('bad-signature');
      }
      // The right key still verifies after its one-bit neighbours were kept.
      expect(hex(verifyEd25519(bytes(v.message), v.signature, key, keys).signature)).toBe(v.signature);
    }
  });

  it('keeps each key object once, and at most `max` of them: past it the oldest goes', () => {
    const keys = new Ed25519Keys(2);
    const [a, b, c] = VECTORS.map((v) => bytes(v.key)) as [Uint8Array, Uint8Array, Uint8Array];
    const first = keys.get(a);
    expect(keys.get(Uint8Array.from(a))).toBe(first);
    expect(first.export({ format: 'der', type: 'spki' }).subarray(-32)).toEqual(Buffer.from(a));
    const second = keys.get(b);
    expect(keys.get(c)).toBe(keys.get(c));
    expect(keys.get(b)).toBe(second);
    const again = keys.get(a);
    expect(again).not.toBe(first);
    expect(again.equals(first)).toBe(true);
  });
});
