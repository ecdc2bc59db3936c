import { StrKey } from '@stellar/stellar-sdk';
import { networks, payments } from 'bitcoinjs-lib';
import { computeAddress, encodeBase58 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../helpers/service.js';

// custody-facts.md: a real vault key (DER SPKI) and its Ethereum address.
const CASP_KEY =
  '3056301006072A8648CE3D020106052B8104000A0342000471A50AA19C7907F113A39409C9BB39F612E8A23223CDE454F17F91FCFFA2E56981411D2A6535754E7E0CAC511A3E4B5D7CE8150F316A37F5E2C7EF51183D805C';
const CASP_ADDRESS = '0x8240Fd14931292B85C850514c8a4eBd35E56EDA4';
const RAW65 = CASP_KEY.slice(46).toLowerCase();
// RFC 8032 test 1 public key.
const ED25519 = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
// A back end nothing listens on: every operation below must answer without it.
const CLOSED = 'http://127.0.0.1:9';

/** Addresses by independent libraries, not by the adaptors under test. */
const compressed = (): Buffer => {
  const raw = Buffer.from(RAW65, 'hex');
  return Buffer.concat([Buffer.from([raw[64]! % 2 === 0 ? 2 : 3]), raw.subarray(1, 33)]);
};
const expected: Record<string, { key: string; address: string; valid: string; invalid: string }> = {
  btc: {
    key: CASP_KEY,
    address: payments.p2wpkh({ pubkey: compressed(), network: networks.bitcoin }).address!,
    valid: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    invalid: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
  },
  btctest: {
    key: CASP_KEY,
    address: payments.p2wpkh({ pubkey: compressed(), network: networks.testnet }).address!,
    valid: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    invalid: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
  },
  eth: { key: CASP_KEY, address: computeAddress(`0x${RAW65}`), valid: CASP_ADDRESS, invalid: '0x1234' },
  ethtest: { key: RAW65, address: CASP_ADDRESS, valid: CASP_ADDRESS.toLowerCase(), invalid: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' },
  stellar: {
    key: ED25519,
    address: StrKey.encodeEd25519PublicKey(Buffer.from(ED25519, 'hex')),
    valid: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
    invalid: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN8',
  },
  stellartest: {
    key: ED25519,
    address: StrKey.encodeEd25519PublicKey(Buffer.from(ED25519, 'hex')),
    valid: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
    invalid: CASP_ADDRESS,
  },
  // Solana: base58 of the 32 key bytes (ethers' base58, not @solana/kit's); the USDC mint, the System Program (32 zero bytes).
  solana: {
    key: ED25519,
    address: encodeBase58(`0x${ED25519}`),
    valid: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    invalid: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
  },
  solanatest: {
    key: ED25519,
    address: encodeBase58(`0x${ED25519}`),
    valid: '11111111111111111111111111111111',
    invalid: encodeBase58(`0x${ED25519.slice(2)}`),
  },
  solanadev: { key: ED25519, address: encodeBase58(`0x${ED25519}`), valid: encodeBase58(`0x${ED25519}`), invalid: CASP_ADDRESS },
};

describe('built-in ledger ids without a back end', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ btcregtest: { backend: 'esplora', url: CLOSED } }, { pipeline: true, env: { OPEN_ROUTES_ANONYMOUS: 'true' } });
  });
  afterAll(async () => {
    await svc.stop();
  });

  describe.each(Object.entries(expected))('%s', (ledgerId, e) => {
    it('address-from-publickey answers, as the ledger’s own library derives it', async () => {
      const { status, body } = await svc.call('POST', `/api/v1.0/ledgers/${ledgerId}/address-from-publickey`, { body: { keys: [e.key] } });
      expect(status).toBe(200);
      expect(body).toEqual({ items: [{ address: e.address }] });
    });

    it('valid answers true and false (and upper-case ids are the same ledger)', async () => {
      const ok = await svc.call('GET', `/api/v1.0/ledgers/${ledgerId.toUpperCase()}/addresses/${e.valid}/valid`);
      expect(ok).toMatchObject({ status: 200, body: { address: e.valid, valid: true } });
      const bad = await svc.call('GET', `/api/v1.0/ledgers/${ledgerId}/addresses/${e.invalid}/valid`);
      expect(bad).toMatchObject({ status: 200, body: { address: e.invalid, valid: false } });
    });

    it('a balance needs a back end: 422 naming the configured ledgers', async () => {
      const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/${ledgerId}/addresses/${e.valid}/balance`);
      expect(status).toBe(422);
      expect(body).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS', valid: ['btcregtest'], notConfigured: true });
      expect(body.details).toContain(`'${ledgerId}' is built in, but no back end is configured`);
      expect(body.details).toContain('btcregtest');
    });

    it('the coin-type status says the ledger has no back end: 500', async () => {
      const { status, body } = await svc.call('GET', `/${ledgerId}/api/v1.0/status`);
      expect(status).toBe(500);
      expect(body.version).toBe('test');
      expect(body.ledger.healthy).toBe(false);
      expect(body.ledger.errorMessage).toContain('btcregtest');
      expect(body.custody).toMatchObject({ healthy: false });
    });
  });

  it('a bitcoin format other than the default works on a built-in id', async () => {
    const { body } = await svc.call('POST', '/api/v1.0/ledgers/btc/address-from-publickey', { body: { keys: [CASP_KEY], format: 'p2pkh' } });
    expect(body.items[0].address).toBe(payments.p2pkh({ pubkey: compressed(), network: networks.bitcoin }).address);
  });

  it('withdrawals and vaults on a built-in id without a back end are refused the same way', async () => {
    const reg = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: 'v-eth', ledgerId: 'eth', publicKey: CASP_KEY } });
    expect(reg.status).toBe(422);
    expect(reg.body).toMatchObject({ notConfigured: true, valid: ['btcregtest'] });
  });

  it('an unknown id → 422 naming configured and built-in ids; its status → 422 too', async () => {
    const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/doge/addresses/${CASP_ADDRESS}/valid`);
    expect(status).toBe(422);
    expect(body.valid).toEqual(
      expect.arrayContaining(['btcregtest', 'btc', 'btctest', 'eth', 'ethtest', 'stellar', 'stellartest', 'solana', 'solanatest', 'solanadev']),
    );
    const st = await svc.call('GET', '/doge/api/v1.0/status');
    expect(st.status).toBe(422);
    expect(st.body.details).toContain("'doge'");
  });

  it('an unknown id longer than 64 characters → the same 422 naming configured and built-in ids', async () => {
    const long = 'x'.repeat(65);
    for (const [method, path, body] of [
      ['GET', `/api/v1.0/ledgers/${long}/addresses/${CASP_ADDRESS}/valid`],
      ['POST', `/api/v1.0/ledgers/${long}/address-from-publickey`, { keys: [CASP_KEY] }],
      ['GET', `/api/v1.0/ledgers/${long}/addresses/${CASP_ADDRESS}/balance`],
    ] as const) {
      const res = await svc.call(method, path, { body });
      expect({ path, status: res.status, errCode: res.body.errCode }).toEqual({ path, status: 422, errCode: 'ERR_INVALID_ARGUMENTS' });
      expect(res.body.details).toContain(`Unknown ledger '${long}'. Valid values: btcregtest`);
      expect(res.body.valid).toContain('btcregtest');
    }
    const status = await svc.call('GET', `/${long}/api/v1.0/status`);
    expect([status.status, status.body.errCode]).toEqual([422, 'ERR_INVALID_ARGUMENTS']);
    expect(status.body.details).toContain(`Unknown coin type '${long}'`);
    expect(status.body.valid).toContain('btcregtest');
  });

  it('the configured ledger with its back end down: the coin-type status is 500 with the reason', async () => {
    const { status, body } = await svc.call('GET', '/btcregtest/api/v1.0/status?withDetails=true');
    expect(status).toBe(500);
    expect(body.ledger.healthy).toBe(false);
    expect(body.ledger.errorMessage).toBeTypeOf('string');
    expect(body.custody.healthy).toBe(false);
  });
});
