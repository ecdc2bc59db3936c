import { describe, expect, it } from 'vitest';
import { singlePayloadWithdrawal } from '../../src/ledger/single-payload.js';

const key = { scheme: 'ed25519' as const, bytes: new Uint8Array(32).fill(0xab) };

describe('singlePayloadWithdrawal', () => {
  it('one transaction, one payload at transaction 0 input 0, signed by the vault key', () => {
    const u = singlePayloadWithdrawal({
      serialized: '0a0b',
      signer: { address: 'A', keyId: 'k1', publicKey: key },
      hashAlgorithm: 'SHA256',
      digest: 'dd',
      preimage: 'pp',
      fee: 100n,
      state: { sequence: '1' },
      expiresAt: 42,
    });
    expect(u).toEqual({
      txs: [{ serialized: '0a0b' }],
      payloads: [{ digest: 'dd', keyId: 'k1', publicKey: 'ab'.repeat(32), preimage: 'pp', hashAlgorithm: 'SHA256', txIndex: 0, inputIndex: 0 }],
      fee: 100n,
      state: { sequence: '1' },
      expiresAt: 42,
    });
  });

  it('PLAIN signs the preimage itself; a replaced payload keeps its key; no expiry when unbounded', () => {
    const u = singlePayloadWithdrawal({
      serialized: '01',
      signer: { keyId: 'k2', publicKey: 'cd'.repeat(32) },
      hashAlgorithm: 'PLAIN',
      preimage: 'beef',
      fee: 5000n,
      state: {},
    });
    expect(u.payloads).toEqual([
      { digest: 'beef', keyId: 'k2', publicKey: 'cd'.repeat(32), preimage: 'beef', hashAlgorithm: 'PLAIN', txIndex: 0, inputIndex: 0 },
    ]);
    expect('expiresAt' in u).toBe(false);
  });
});
