import { networks } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import { parsePublicKey } from '../../../src/ledger/public-key.js';
import { builtInBitcoinCodec } from '../address-codec.js';
import { addressFromPublicKey, canonicalAddress, detectFormat, isValidAddress, recipientScript } from './address.js';

const { bitcoin: mainnet, testnet, regtest } = networks;
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : undefined);

describe('addresses from custody keys', () => {
  // custody-facts.md: a real CASP vault key (DER SPKI, uncompressed).
  const casp = parsePublicKey(
    '3056301006072A8648CE3D020106052B8104000A0342000471A50AA19C7907F113A39409C9BB39F612E8A23223CDE454F17F91FCFFA2E56981411D2A6535754E7E0CAC511A3E4B5D7CE8150F316A37F5E2C7EF51183D805C',
    'secp256k1',
  );

  it('gives the CASP vector its P2WPKH mainnet address', () => {
    expect(addressFromPublicKey(casp, 'p2wpkh', mainnet)).toBe('bc1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlw6qz2yj');
  });

  it('derives each format with the network prefixes, and detects the format back', () => {
    for (const [net, prefixes] of [
      [mainnet, ['bc1q', '3', '1']],
      [testnet, ['tb1q', '2', 'm']],
      [regtest, ['bcrt1q', '2', 'm']],
    ] as const) {
      const [w, s, l] = ['p2wpkh', 'p2sh-p2wpkh', 'p2pkh'].map((f) => addressFromPublicKey(casp, f, net));
      expect(w!.startsWith(prefixes[0])).toBe(true);
      expect(s!.startsWith(prefixes[1])).toBe(true);
      expect(/^[mn]/.test(l!) || l!.startsWith(prefixes[2])).toBe(true);
      expect(detectFormat(casp, s!, net)).toBe('p2sh-p2wpkh');
    }
  });

  it('rejects unknown formats and ed25519 keys with a 422', () => {
    expect(() => addressFromPublicKey(casp, 'p2tr', mainnet)).toThrow(InvalidArgumentError);
    expect(() => addressFromPublicKey({ scheme: 'ed25519', bytes: new Uint8Array(32) }, 'p2wpkh', mainnet)).toThrow(InvalidArgumentError);
  });
});

// BIP173 and BIP350 test vectors (github.com/bitcoin/bips, bip-0173 / bip-0350 "Test vectors").
describe('address validity (BIP173, BIP350)', () => {
  it('accepts the valid v0/v1 vectors on their network, with the right script', () => {
    const valid: [string, typeof mainnet, string][] = [
      ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', mainnet, '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
      ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', testnet, '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'],
      ['tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy', testnet, '0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433'],
      ['tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', testnet, '5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433'],
      ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', mainnet, '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'],
      ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', mainnet, '76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac'],
      ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', mainnet, 'a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87'],
    ];
    for (const [address, net, script] of valid) {
      expect(hex(recipientScript(address, net)), address).toBe(script);
      expect(isValidAddress(address, net === mainnet ? testnet : mainnet), `${address} on the other network`).toBe(false);
    }
  });

  it('refuses BIP350-valid addresses of undefined witness versions/lengths (funds could be burnt)', () => {
    for (const a of ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', 'BC1SW50QGDZ25J', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs']) {
      expect(isValidAddress(a, mainnet), a).toBe(false);
    }
  });

  it('rejects every invalid vector', () => {
    const invalid = [
      // BIP173
      'tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5',
      'BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2',
      'bc1rw5uspcuh',
      'bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90',
      'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P',
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7',
      'bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du',
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv',
      'bc1gmk9yu',
      // BIP350
      'tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd',
      'tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf',
      'BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh',
      'tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47',
      'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4',
      'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R',
      'bc1pw5dgrnzv',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav',
      'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf',
      'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j',
      // base58: bad checksum, unknown version
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3',
      '',
    ];
    for (const a of invalid) {
      expect(isValidAddress(a, mainnet) || isValidAddress(a, testnet), a).toBe(false);
    }
  });

  it('tells regtest from testnet only by the bech32 prefix, as Bitcoin Core does', () => {
    expect(isValidAddress('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', regtest)).toBe(false);
    expect(isValidAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', regtest)).toBe(true);
  });
});

describe('canonicalAddress: one spelling per output script', () => {
  const codec = builtInBitcoinCodec('btc')!;
  // BIP173 and BIP350 test vectors: witness v0 and v1 programs, in the upper case BIP173 allows.
  const P2WPKH = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
  const P2TR = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';

  it('gives bech32 and bech32m in lower case, whatever case they came in', () => {
    for (const address of [P2WPKH, P2TR]) {
      expect(codec.canonicalAddress!(address)).toBe(address);
      expect(codec.canonicalAddress!(address.toUpperCase())).toBe(address);
      expect(hex(recipientScript(address.toUpperCase(), mainnet))).toBe(hex(recipientScript(address, mainnet)));
    }
  });

  it('keeps base58check addresses (one spelling each), and gives the same text for the same key in every format it was derived in', () => {
    for (const address of ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy']) expect(codec.canonicalAddress!(address)).toBe(address);
    const key = parsePublicKey('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'secp256k1');
    for (const format of ['p2wpkh', 'p2sh-p2wpkh', 'p2pkh']) {
      const address = addressFromPublicKey(key, format, regtest);
      expect(canonicalAddress(address, regtest)).toBe(address);
    }
  });
});
