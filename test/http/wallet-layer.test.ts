import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';

// custody-facts.md: a real vault key and its Ethereum address.
const CASP_KEY =
  '3056301006072A8648CE3D020106052B8104000A0342000471A50AA19C7907F113A39409C9BB39F612E8A23223CDE454F17F91FCFFA2E56981411D2A6535754E7E0CAC511A3E4B5D7CE8150F316A37F5E2C7EF51183D805C';
const CASP_ADDRESS = '0x8240Fd14931292B85C850514c8a4eBd35E56EDA4';
const RAW65 = CASP_KEY.slice(46);
const RAW33 = `${BigInt(`0x${RAW65.slice(-2)}`) % 2n === 0n ? '02' : '03'}${RAW65.slice(2, 66)}`;

describe('wallet layer over HTTP (real Redis, real anvil)', () => {
  let chain: TestChain;
  let svc: TestService;

  beforeAll(async () => {
    chain = await startTestChain();
    // The custody API spec shows address-from-publickey and the address balance without a key: the open mode.
    svc = await startTestService({ ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 } }, { env: { OPEN_ROUTES_ANONYMOUS: 'true' } });
  });
  afterAll(async () => {
    await svc.stop();
    await chain.stop();
  });

  describe('GET /config and /status', () => {
    it('lists each ledger with family, network, assets and fee levels', async () => {
      const { status, body } = await svc.call('GET', '/api/v1.0/config');
      expect(status).toBe(200);
      expect(body.version).toBe('test');
      expect(body.ledgers).toHaveLength(1);
      const l = body.ledgers[0];
      expect(l).toMatchObject({ ledgerId: 'ethdev', family: 'ethereum', network: 'dev', nativeAsset: { symbol: 'ETH', decimals: 18 } });
      expect(l.assets.map((a: { symbol: string }) => a.symbol)).toEqual(['ETH', 'DEMO']);
      expect(l.feeLevels).toEqual(expect.arrayContaining(['HIGH', 'MEDIUM', 'LOW']));
    });

    it('reports Redis and ledger health with height and network', async () => {
      const { status, body } = await svc.call('GET', '/api/v1.0/status');
      expect(status).toBe(200);
      expect(body.healthy).toBe(true);
      expect(body.redis).toEqual({ healthy: true });
      expect(body.ledgers.ethdev).toMatchObject({ healthy: true, network: 'chain 31337' });
      expect(body.ledgers.ethdev.height).toBeGreaterThan(0);
    });
  });

  describe('address validity', () => {
    it.each([
      [CASP_ADDRESS, true],
      [CASP_ADDRESS.toLowerCase(), true],
      ['0x8240fD14931292B85C850514c8a4eBd35E56EDA4', false], // mixed case, wrong checksum
      ['8240Fd14931292B85C850514c8a4eBd35E56EDA4', false],
      ['0x8240Fd14931292B85C850514c8a4eBd35E56EDA', false],
      ['hello', false],
    ])('%s → %s', async (address, valid) => {
      const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${address}/valid`);
      expect(status).toBe(200);
      expect(body).toEqual({ address, valid });
    });

    it('unknown ledger → 422 naming the valid ledgers', async () => {
      const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/doge/addresses/${CASP_ADDRESS}/valid`);
      expect(status).toBe(422);
      expect(body.errCode).toBe('ERR_INVALID_ARGUMENTS');
      expect(body.details).toContain("'doge'");
      expect(body.details).toContain('ethdev');
      expect(body.type).toMatch(/^\//);
      expect(body.title).toBeTypeOf('string');
    });
  });

  describe('address from public key', () => {
    it('accepts DER SPKI, raw 65 and raw 33 bytes in either case (custody-facts vector)', async () => {
      const keys = [CASP_KEY, CASP_KEY.toLowerCase(), RAW65, RAW33, RAW33.toUpperCase()];
      const { status, body } = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body: { keys } });
      expect(status).toBe(200);
      expect(body.items).toEqual(keys.map(() => ({ address: CASP_ADDRESS })));
    });

    it('a bad key → 422 naming its index', async () => {
      const keys = [CASP_KEY, 'zz', RAW65];
      const { status, body } = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body: { keys } });
      expect(status).toBe(422);
      expect(body.details).toMatch(/^keys\[1\]/);
      expect(body.index).toBe(1);
    });

    it('a point not on the curve → 422', async () => {
      const bad = `04${'11'.repeat(64)}`;
      const { status, body } = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body: { keys: [bad] } });
      expect(status).toBe(422);
      expect(body.details).toContain('keys[0]');
    });

    it('unknown format → 422 naming the valid formats', async () => {
      const { status, body } = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body: { keys: [CASP_KEY], format: 'p2pkh' } });
      expect(status).toBe(422);
      expect(body.details).toContain('eip55');
    });

    it('serves a batch of 10,000 keys and refuses 10,001', async () => {
      const keys = Array.from({ length: 10_000 }, () => CASP_KEY);
      const ok = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body: { keys } });
      expect(ok.status).toBe(200);
      expect(ok.body.items).toHaveLength(10_000);
      const tooMany = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body: { keys: [...keys, CASP_KEY] } });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.details).toContain('10000');
    });

    it('missing or wrong-typed keys → 422', async () => {
      for (const body of [{}, { keys: 'abc' }, { keys: [] }, { keys: [1] }]) {
        const res = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body });
        expect(res.status).toBe(422);
        expect(res.body.errCode).toBe('ERR_INVALID_ARGUMENTS');
      }
    });
  });

  describe('address balance', () => {
    it('answers ETH and the ERC-20 in asset units as decimal strings', async () => {
      const addr = '0x00000000000000000000000000000000000000A1';
      await chain.funder.sendEth(addr, 1_500_000_000_000_000_001n);
      await chain.funder.sendToken(chain.token.contract, addr, 12_340_000n);
      const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?assets=*`);
      expect(status).toBe(200);
      expect(body).toEqual({
        address: addr,
        balances: [
          { asset: 'ETH', amount: '1.500000000000000001' },
          { asset: 'DEMO', amount: '12.34' },
        ],
      });
      const one = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?assets=DEMO`);
      expect(one.body.balances).toEqual([{ asset: 'DEMO', amount: '12.34' }]);
      // The spec: without `assets`, the ledger's default asset.
      const byDefault = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance`);
      expect(byDefault.body.balances).toEqual([{ asset: 'ETH', amount: '1.500000000000000001' }]);
    });

    it('array-style assets[]= works like repeated and comma-separated forms; other bracket forms are refused', async () => {
      const addr = '0x00000000000000000000000000000000000000A1';
      const both = [
        { asset: 'DEMO', amount: '12.34' },
        { asset: 'ETH', amount: '1.500000000000000001' },
      ];
      for (const query of ['assets[]=DEMO&assets[]=ETH', 'assets=DEMO&assets=ETH', 'assets=DEMO,ETH', 'assets[]=DEMO,ETH']) {
        const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?${query}`);
        expect({ query, status, balances: body.balances }).toEqual({ query, status: 200, balances: both });
      }
      const one = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?assets%5B%5D=DEMO`);
      expect(one.body.balances).toEqual([{ asset: 'DEMO', amount: '12.34' }]);
      for (const query of ['assets[0]=DEMO', 'assets[x]=DEMO', 'assets[]=USDT']) {
        const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?${query}`);
        expect({ query, status, errCode: body.errCode }).toEqual({ query, status: 422, errCode: 'ERR_INVALID_ARGUMENTS' });
      }
      const mixed = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?assets=*,ETH`);
      expect(mixed.status).toBe(422);
    });

    it('an asset named twice (ETH,ETH, or ETH and eth) is reported once, with what the address holds', async () => {
      const addr = '0x00000000000000000000000000000000000000A2';
      await chain.funder.sendEth(addr, 10n ** 18n);
      for (const query of ['assets=ETH,ETH', 'assets=ETH&assets=eth', 'assets[]=eth&assets[]=ETH,DEMO&assets=demo']) {
        const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?${query}`);
        const expected = query.includes('DEMO')
          ? [
              { asset: 'ETH', amount: '1' },
              { asset: 'DEMO', amount: '0' },
            ]
          : [{ asset: 'ETH', amount: '1' }];
        expect({ query, status, balances: body.balances }).toEqual({ query, status: 200, balances: expected });
      }
      const every = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${addr}/balance?assets=*&assets=*`);
      expect(every.body.balances).toEqual([
        { asset: 'ETH', amount: '1' },
        { asset: 'DEMO', amount: '0' },
      ]);
    });

    it('unknown asset → 422 listing the ledger assets', async () => {
      const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/ethdev/addresses/${CASP_ADDRESS}/balance?assets=USDT`);
      expect(status).toBe(422);
      expect(body.details).toContain('USDT');
      expect(body.details).toContain('ETH, DEMO, *');
    });

    it('invalid address → 422', async () => {
      const { status, body } = await svc.call('GET', '/api/v1.0/ledgers/ethdev/addresses/0x1234/balance');
      expect(status).toBe(422);
      expect(body.details).toContain('0x1234');
    });
  });

  describe('errors in the AppError shape', () => {
    it('unknown route → 404', async () => {
      const { status, body } = await svc.call('GET', '/api/v1.0/nothing-here');
      expect(status).toBe(404);
      expect(body).toMatchObject({ errCode: 'ERR_NOT_FOUND', title: 'Not found' });
    });

    it('malformed JSON → 400 without a stack trace', async () => {
      const { status, body } = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { rawBody: '{"keys": [' });
      expect(status).toBe(400);
      expect(body.errCode).toBe('ERR_MALFORMED_JSON');
      expect(JSON.stringify(body)).not.toMatch(/at .*\.ts|node_modules/);
    });

    it('body over the limit → 413', async () => {
      const big = JSON.stringify({ keys: ['a'.repeat(5 * 1024 * 1024)] });
      const { status, body } = await svc.call('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { rawBody: big });
      expect(status).toBe(413);
      expect(body.errCode).toBe('ERR_PAYLOAD_TOO_LARGE');
    });
  });

  describe('OpenAPI', () => {
    it('documents every route from the validating schemas', async () => {
      const { status, body } = await svc.call('GET', '/api/v1.0/openapi.json');
      expect(status).toBe(200);
      expect(body.openapi).toBe('3.1.0');
      const paths = Object.keys(body.paths);
      expect(paths).toEqual(
        expect.arrayContaining([
          '/api/v1.0/config',
          '/api/v1.0/status',
          '/api/v1.0/ledgers/{ledgerId}/addresses/{address}/valid',
          '/api/v1.0/ledgers/{ledgerId}/address-from-publickey',
          '/api/v1.0/ledgers/{ledgerId}/addresses/{address}/balance',
          '/api/v1.0/vaults/{vaultId}/balance',
          '/api/v1.0/admin/vaults',
        ]),
      );
      const post = body.paths['/api/v1.0/ledgers/{ledgerId}/address-from-publickey'].post;
      expect(post.requestBody.content['application/json'].schema.properties.keys.maxItems).toBe(10_000);
      expect(body.paths['/api/v1.0/vaults/{vaultId}/balance'].get.security).toEqual([{ bearer: ['read'] }]);
    });
  });

  describe('auth', () => {
    it('401 without a key, 401 with an unknown key, 403 without the scope', async () => {
      const path = '/api/v1.0/admin/vaults';
      expect((await svc.call('GET', path)).status).toBe(401);
      const unknown = await svc.call('GET', path, { key: 'not-a-key-at-all-xxxx' });
      expect(unknown.status).toBe(401);
      expect(unknown.body.errCode).toBe('ERR_UNAUTHORIZED');
      const forbidden = await svc.call('GET', path, { key: READ_KEY });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.details).toContain("'admin'");
      expect((await svc.call('GET', path, { key: ADMIN_KEY })).status).toBe(200);
    });
  });
});
