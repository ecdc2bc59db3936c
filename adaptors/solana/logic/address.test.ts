import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import { addressFromPublicKey, isValidAddress } from './address.js';

describe('solana addresses', () => {
  it('addresses are base58 of the 32-byte ed25519 key', () => {
    expect(addressFromPublicKey({ scheme: 'ed25519', bytes: new Uint8Array(32) })).toBe('11111111111111111111111111111111');
    expect(() => addressFromPublicKey({ scheme: 'secp256k1', bytes: new Uint8Array(33) })).toThrow(InvalidArgumentError);
    expect(() => addressFromPublicKey({ scheme: 'ed25519', bytes: new Uint8Array(32) }, 'hex')).toThrow(/Valid values: base58/);
    expect(isValidAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(isValidAddress('EPjFWdd5AufqSSqeM2qN1xzy')).toBe(false);
    expect(isValidAddress('0PjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(false);
  });
});
