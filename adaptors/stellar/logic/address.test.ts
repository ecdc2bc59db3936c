import { describe, expect, it } from 'vitest';
import { Memo } from '@stellar/stellar-sdk';
import { parseMemo, splitRecipient } from '../index.js';
import { builtInStellarCodec } from '../address-codec.js';
import { addressFromPublicKey, isValidAddress, parseNativePublicKey } from './address.js';
import { creditAssets } from './assets.js';
import { AppError } from '../../../src/platform/errors.js';
import { parsePublicKey } from '../../../src/ledger/public-key.js';

// SEP-23 (ecosystem/sep-0023.md, version 1.3.0): its own valid and invalid test vectors.
const SEP23_KEY_HEX = '3f0c34bf93ad0d9971d04ccc90f705511c838aad9734a4a2fb0d7a03fc7fe89a';
const SEP23_G = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
const SEP23_VALID_RECIPIENTS = [
  SEP23_G,
  'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ', // id 0
  'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK', // id 2^63
];
/** Valid SEP-23 strkeys of other kinds: not payment recipients. */
const SEP23_VALID_NOT_RECIPIENTS = [
  'PA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAQACAQDAQCQMBYIBEFAWDANBYHRAEISCMKBKFQXDAMRUGY4DUPB6IBZGM',
  'CA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUWDA',
  'LA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUPJN',
  'BAAD6DBUX6J22DMZOHIEZTEQ64CVCHEDRKWZONFEUL5Q26QD7R76RGR4TU',
];
const SEP23_INVALID = [
  'GAAAAAAAACGC6',
  'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUR',
  'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZA',
  'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUACUSI',
  'G47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVP2I',
  'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLKA',
  'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAAV75I',
  'M47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ',
  'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUK===',
  'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUO',
  'PA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAQACAQDAQCQMBYIBEFAWDANBYHRAEISCMKBKFQXDAMRUGY4DUPB6IAAAAAAAAPM',
  'PA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAOQCAQDAQCQMBYIBEFAWDANBYHRAEISCMKBKFQXDAMRUGY4Z2PQ',
  'PA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAOQCAQDAQCQMBYIBEFAWDANBYHRAEISCMKBKFQXDAMRUGY4DXFH6',
  'BAAD6DBUX6J22DMZOHIEZTEQ64CVCHEDRKWZONFEUL5Q26QD7R76RGR4TV',
  'BAAT6DBUX6J22DMZOHIEZTEQ64CVCHEDRKWZONFEUL5Q26QD7R76RGXACA',
];

describe('SEP-23 addresses', () => {
  it('derives the G… account id of the SEP-23 key from raw hex and DER SPKI', () => {
    expect(addressFromPublicKey(parsePublicKey(SEP23_KEY_HEX, 'ed25519'))).toBe(SEP23_G);
    expect(addressFromPublicKey(parsePublicKey(`302a300506032b6570032100${SEP23_KEY_HEX}`, 'ed25519'), 'account')).toBe(SEP23_G);
    expect(() => addressFromPublicKey(parsePublicKey(SEP23_KEY_HEX, 'ed25519'), 'muxed')).toThrow(AppError);
  });

  it('parses the G… spelling of a key', () => {
    expect(Buffer.from(parseNativePublicKey(SEP23_G)!.bytes).toString('hex')).toBe(SEP23_KEY_HEX);
    expect(parseNativePublicKey(SEP23_VALID_RECIPIENTS[1]!)).toBeUndefined();
    expect(parseNativePublicKey(SEP23_KEY_HEX)).toBeUndefined();
  });

  it.each(SEP23_VALID_RECIPIENTS)('accepts %s as a recipient', (a) => expect(isValidAddress(a)).toBe(true));
  it.each(SEP23_VALID_NOT_RECIPIENTS)('refuses valid non-account strkey %s', (a) => expect(isValidAddress(a)).toBe(false));
  it.each(SEP23_INVALID)('refuses invalid strkey %s', (a) => expect(isValidAddress(a)).toBe(false));

  it('refuses lower case, padding and whitespace variants', () => {
    expect(isValidAddress(SEP23_G.toLowerCase())).toBe(false);
    expect(isValidAddress(` ${SEP23_G}`)).toBe(false);
    expect(isValidAddress('')).toBe(false);
  });
});

describe('recipient ?memo= form and memos', () => {
  it('splits address?memo=…', () => {
    expect(splitRecipient(SEP23_G)).toEqual({ address: SEP23_G });
    expect(splitRecipient(`${SEP23_G}?memo=id%3A42`)).toEqual({ address: SEP23_G, memo: 'id:42' });
    expect(splitRecipient(`${SEP23_G}?memo=hello%20world`)).toEqual({ address: SEP23_G, memo: 'hello world' });
    expect(() => splitRecipient(`${SEP23_G}?memo=a&x=1`)).toThrow(AppError);
    expect(isValidAddress(`${SEP23_G}?memo=id:42`)).toBe(true);
    expect(isValidAddress(`${SEP23_G}?memo=id:-1`)).toBe(false);
    expect(isValidAddress(`${SEP23_G}?tag=1`)).toBe(false);
  });

  it('parses text, id, hash and return memos', () => {
    expect(parseMemo('hello').type).toBe('text');
    expect(parseMemo('text:id:7').value?.toString()).toBe('id:7');
    const id = parseMemo('id:18446744073709551615');
    expect([id.type, id.value]).toEqual(['id', '18446744073709551615']);
    expect(parseMemo(`hash:${'AB'.repeat(32)}`).type).toBe('hash');
    expect(parseMemo(`return:${'ab'.repeat(32)}`).type).toBe('return');
    expect(parseMemo('x'.repeat(28))).toBeInstanceOf(Memo);
    for (const bad of ['', 'id:18446744073709551616', 'id:abc', 'hash:abcd', 'x'.repeat(29), 'text:']) {
      expect(() => parseMemo(bad), bad).toThrow(AppError);
    }
  });
});

describe('asset symbols', () => {
  const A = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
  const B = 'GAVY4EYJC7LG55VSEEJKL4KT4OEVJSLZXDGU7ORLGXDY6PE4SSYMEBMT';
  it('uses the bare code when unambiguous, CODE:ISSUER otherwise', () => {
    const assets = creditAssets([
      { code: 'USDC', issuer: A },
      { code: 'EURT', issuer: A },
      { code: 'EURT', issuer: B },
      { code: 'XLM', issuer: B },
    ]);
    expect(assets.map((a) => a.symbol)).toEqual(['USDC', `EURT:${A}`, `EURT:${B}`, `XLM:${B}`]);
    expect(assets.every((a) => a.decimals === 7 && !a.native && a.contract)).toBe(true);
  });
});

describe('canonicalAddress: the G… account a recipient pays', () => {
  const codec = builtInStellarCodec('stellar')!;

  it('gives the base G… account of every SEP-23 recipient, and of one with a memo', () => {
    for (const recipient of [...SEP23_VALID_RECIPIENTS, `${SEP23_G}?memo=id:42`, `${SEP23_VALID_RECIPIENTS[1]}?memo=text:hello`]) {
      expect(codec.isValidAddress(recipient)).toBe(true);
      expect(codec.canonicalAddress!(recipient)).toBe(SEP23_G);
    }
  });
});
