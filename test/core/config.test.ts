import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { ConfigError } from '../../src/platform/config-error.js';
import { loadConfig, SANDBOX_PREFIX } from '../../src/config/load-config.js';
import { createLogger } from '../../src/platform/logger.js';

describe('configuration', () => {
  it('selects the sandbox profile with no configuration at all', () => {
    const c = loadConfig({}, families, 'v');
    expect(c.sandboxProfile).toBe(true);
    expect(c.port).toBe(8080);
    expect(c.redisUrl).toBe('redis://127.0.0.1:6379');
  });

  it('reports every problem at once', () => {
    try {
      loadConfig(
        {
          PORT: 'eighty',
          LOG_LEVEL: 'loud',
          SANDBOX: 'false',
          API_KEYS: '[{"name":"a","key":"short","scopes":["fly"]}]',
          LEDGERS: JSON.stringify({ eth: { rpcUrl: 'not a url' }, doge: {}, polygon: { family: 'evm' } }),
          CUSTODY_USER: 'operator',
        },
        families,
        'v',
      );
      expect.fail('should throw');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const text = (e as ConfigError).problems.join('\n');
      expect(text).toContain('PORT');
      expect(text).toContain('LOG_LEVEL');
      expect(text).toContain('API_KEYS');
      expect(text).toContain('LEDGERS.eth.rpcUrl');
      expect(text).toContain('LEDGERS.doge: not a built-in ledger id');
      expect(text).toContain("unknown family 'evm'. Valid values: ethereum");
      expect(text).toContain('CUSTODY_URL is required');
      expect(text).toContain('CUSTODY_USER and CUSTODY_PASSWORD go together');
    }
  });

  it('accepts a custom ledger id of a known family', () => {
    const c = loadConfig(
      {
        LEDGERS: JSON.stringify({ polygon: { family: 'ethereum', rpcUrl: 'http://127.0.0.1:1', chainId: 137 } }),
        API_KEYS: JSON.stringify([{ name: 'k', sha256: 'a'.repeat(64), scopes: ['read'] }]),
        CUSTODY_URL: 'http://127.0.0.1:1/custody/api/v1.0/mng',
        CALLBACK_SECRET: 'a-callback-secret-of-some-length',
      },
      families,
      'v',
    );
    expect(c.sandboxProfile).toBe(false);
    expect(c.ledgerConfigs.map((l) => l.ledgerId)).toEqual(['polygon']);
  });

  it('starts without a callback secret or allow-list (the custody service sends no HMAC)', () => {
    const c = loadConfig(
      {
        LEDGERS: JSON.stringify({ ethtest: { rpcUrl: 'http://127.0.0.1:1' } }),
        API_KEYS: JSON.stringify([{ name: 'k', sha256: 'a'.repeat(64), scopes: ['read'] }]),
        CUSTODY_URL: 'http://127.0.0.1:1/custody/api/v1.0/mng',
      },
      families,
      'v',
    );
    expect(c.sandboxProfile).toBe(false);
    expect(c.callbackSecret).toBeUndefined();
    expect(c.callbackAllowedIps).toBeUndefined();
  });

  it('refuses two ways of custody authentication at once', () => {
    expect(() =>
      loadConfig({ SANDBOX: 'true', CUSTODY_API_KEY: 'k'.repeat(20), CUSTODY_USER: 'operator', CUSTODY_PASSWORD: 'pw-0123456789' }, families, 'v'),
    ).toThrow(/CUSTODY_API_KEY and CUSTODY_USER are both set/);
  });

  it('censors the custody user and password in logs', () => {
    const c = loadConfig({ SANDBOX: 'true', CUSTODY_USER: 'custody-operator', CUSTODY_PASSWORD: 'custody-password-0123' }, families, 'v');
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, cb) {
        out += String(chunk);
        cb();
      },
    });
    createLogger('info', c.secrets, sink).info({ detail: 'login custody-operator:custody-password-0123' }, 'token');
    expect(out).not.toContain('custody-operator');
    expect(out).not.toContain('custody-password-0123');
    expect(out).toContain('[REDACTED]');
  });

  it('marks secrets so the logger censors them anywhere in a line', () => {
    const c = loadConfig(
      {
        LEDGERS: JSON.stringify({ eth: { rpcUrl: 'https://mainnet.example/v3/SUPERSECRETPROJECTKEY' } }),
        API_KEYS: JSON.stringify([{ name: 'k', key: 'plain-api-key-1234567890abcdef012345', scopes: ['read'] }]),
        CUSTODY_URL: 'http://127.0.0.1:1/custody/api/v1.0/mng',
        CALLBACK_SECRET: 'a-callback-secret-of-some-length',
      },
      families,
      'v',
    );
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, cb) {
        out += String(chunk);
        cb();
      },
    });
    const logger = createLogger('info', c.secrets, sink);
    logger.info({ url: 'https://mainnet.example/v3/SUPERSECRETPROJECTKEY' }, 'calling plain-api-key-1234567890abcdef012345 a-callback-secret-of-some-length');
    expect(out).not.toContain('a-callback-secret-of-some-length');
    expect(out).not.toContain('SUPERSECRETPROJECTKEY');
    expect(out).not.toContain('plain-api-key-1234567890abcdef012345');
    expect(out).toContain('[REDACTED]');
  });

  const production = {
    API_KEYS: JSON.stringify([{ name: 'k', sha256: 'a'.repeat(64), scopes: ['read'] }]),
    CUSTODY_URL: 'http://127.0.0.1:1/custody/api/v1.0/mng',
    CALLBACK_SECRET: 'a-callback-secret-of-some-length',
  };
  /** The problems loadConfig reports for `env` (production variables unless overridden). */
  function problems(env: Record<string, string>): string[] {
    try {
      loadConfig({ ...production, ...env }, families, 'v');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as ConfigError).problems;
    }
    return [];
  }
  const ledgers = (l: unknown) => ({ LEDGERS: JSON.stringify(l) });

  it('refuses an unknown option of every family, naming the valid ones and the likely one', () => {
    expect(problems(ledgers({ ethdev: { rpcUrl: 'http://127.0.0.1:1', confirmation: 1 } }))).toEqual([
      "LEDGERS.ethdev: unknown option 'confirmation' (did you mean 'confirmations'?). Valid options: rpcUrl, chainId, tokens, feeMode, confirmations, gasMarginPercent, headMaxAgeMs, sendBatchSize, family",
    ]);
    const [btc] = problems(ledgers({ btc: { url: 'https://esplora.example/api', backnd: 'core' } }));
    expect(btc).toMatch(/^LEDGERS\.btc: unknown option 'backnd' \(did you mean 'backend'\?\)\. Valid options: network, backend, url, /);
    const [xlm] = problems(ledgers({ stellar: { horizonUrl: 'https://horizon.example', asset: [], memo: 'x' } }));
    expect(xlm).toMatch(/^LEDGERS\.stellar: unknown options 'asset' \(did you mean 'assets'\?\), 'memo'\. Valid options: horizonUrl, /);
    const token = { symbol: 'USDC', contract: `0x${'1'.repeat(40)}`, decimals: 6, name: 'USD Coin' };
    expect(problems(ledgers({ eth: { rpcUrl: 'https://node.example', tokens: [token] } }))).toEqual([
      "LEDGERS.eth.tokens[0]: unknown option 'name'. Valid options: symbol, contract, decimals",
    ]);
  });

  it('checks the scheme of every URL without printing the URL', () => {
    const found = problems({
      ...ledgers({
        eth: { rpcUrl: 'ftp://node.example/SECRETKEY1' },
        btc: { url: 'not a url' },
        stellar: { horizonUrl: 'ws://horizon.example/SECRETKEY2' },
      }),
      REDIS_URL: 'http://127.0.0.1:6379',
      CUSTODY_URL: 'ftp://custody.example/mng',
      PUBLIC_URL: 'localhost:8080',
    });
    expect(found).toEqual([
      'REDIS_URL: must start with redis:// or rediss:// (or redis+cluster://host:port,host:port), not http://',
      "CUSTODY_URL: must start with http:// or https://, not ftp://, got 'ftp://custody.example/mng'",
      "PUBLIC_URL: must start with http:// or https://, not localhost://, got 'localhost:8080'",
      'LEDGERS.eth.rpcUrl: must start with http:// or https://, not ftp://',
      'LEDGERS.btc.url: must be a URL starting with http:// or https://',
      'LEDGERS.stellar.horizonUrl: must start with http:// or https://, not ws://',
    ]);
    expect(found.join('\n')).not.toContain('SECRETKEY');
    expect(problems({ ...ledgers({ eth: { rpcUrl: 'https://node.example' } }), REDIS_URL: 'rediss://redis.example:6380' })).toEqual([]);
  });

  it('refuses an empty LEDGERS outside the sandbox', () => {
    expect(problems({ LEDGERS: '{}' })).toEqual(['LEDGERS names no ledger: configure at least one, or leave LEDGERS unset for the sandbox profile']);
    expect(problems({ LEDGERS: '{}', SANDBOX: 'false' })).toHaveLength(1);
    expect(loadConfig({ LEDGERS: '{}', SANDBOX: 'true' }, families, 'v').sandboxProfile).toBe(true);
  });

  it('reports a variable that is set but invalid once, not also as missing', () => {
    expect(problems({ ...ledgers({ eth: { rpcUrl: 'https://node.example' } }), CUSTODY_URL: 'custody' })).toEqual([
      "CUSTODY_URL: must be a URL starting with http:// or https://, got 'custody'",
    ]);
    expect(problems({ ...ledgers({ eth: { rpcUrl: 'https://node.example' } }), CALLBACK_SECRET: 'short' })).toEqual([
      'CALLBACK_SECRET: must have at least 16 characters',
    ]);
    expect(problems({ ...ledgers({ eth: { rpcUrl: 'https://node.example' } }), API_KEYS: '[' })).toEqual([
      expect.stringMatching(/^API_KEYS: is not valid JSON/),
    ]);
    // Invalid ledgers do not fall back to the sandbox, and are not "required" either.
    expect(problems({ LEDGERS: '{"eth":' })).toEqual([expect.stringMatching(/^LEDGERS: is not valid JSON/)]);
    expect(problems(ledgers({ eth: 'https://node.example' }))).toEqual(['LEDGERS.eth: must be an object']);
  });

  it('says what a number, a choice and a flag must be, with the value given', () => {
    const eth = ledgers({ eth: { rpcUrl: 'https://node.example' } });
    expect(problems({ ...eth, PORT: 'abc' })).toEqual(["PORT: must be a whole number from 0 to 65535, got 'abc'"]);
    expect(problems({ ...eth, PORT: '1e3' })).toEqual(["PORT: must be a whole number from 0 to 65535, got '1e3'"]);
    expect(problems({ ...eth, PORT: '70000' })).toEqual(["PORT: must be a whole number from 0 to 65535, got '70000'"]);
    expect(loadConfig({ ...production, ...eth, PORT: ' 8443 ' }, families, 'v').port).toBe(8443);
    // An empty value (compose passes `${PORT:-}` as '') means the default.
    const empty = loadConfig({ ...production, ...eth, PORT: '', WORKER_PORT: '', LOG_LEVEL: '' }, families, 'v');
    expect([empty.port, empty.workerPort, empty.logLevel]).toEqual([8080, 8081, 'info']);
    expect(problems({ ...eth, LOG_LEVEL: 'loud' })).toEqual(["LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'"]);
    expect(problems({ ...eth, DASHBOARD_READ_ONLY: 'maybe' })).toEqual(["DASHBOARD_READ_ONLY: must be true or false, got 'maybe'"]);
    expect(problems({ ...eth, BODY_LIMIT: '4 MB' })).toEqual(["BODY_LIMIT: must be a size such as 512kb or 4mb, got '4 MB'"]);
    expect(problems(ledgers({ eth: { rpcUrl: 'https://node.example', confirmations: 0 } }))).toEqual(['LEDGERS.eth.confirmations: must be at least 1']);
    expect(problems(ledgers({ eth: { rpcUrl: 'https://node.example', confirmations: '3' } }))).toEqual(['LEDGERS.eth.confirmations: must be a number']);
    expect(problems(ledgers({ eth: { chainId: 1 } }))).toEqual(['LEDGERS.eth.rpcUrl: is required']);
    expect(problems(ledgers({ ETH: { rpcUrl: 'https://node.example' } }))).toEqual([
      'LEDGERS.ETH: has an invalid name: a ledger id must be 2-32 lower-case letters, digits, _ or -',
    ]);
    expect(problems({ ...eth, API_KEYS: '[{"name":"","sha256":"' + 'a'.repeat(64) + '","scopes":[]}]' })).toEqual([
      'API_KEYS[0].name: must not be empty',
      'API_KEYS[0].scopes: must not be empty',
    ]);
  });

  it('names the API key field at fault without printing a key', () => {
    const found = problems({
      ...ledgers({ eth: { rpcUrl: 'https://node.example' } }),
      API_KEYS: JSON.stringify([
        { name: 'a', key: 'plain-key-0123456789abcdef0123456789', scope: ['read'] },
        { name: 'b', key: 'plain-key-9876543210abcdef0123456789', scopes: ['fly'] },
        { name: 'c', key: 'plain-key-9876543210abcdef0123456789', sha256: 'a'.repeat(64), scopes: ['read'] },
        { name: 'd', key: 'plain-key-5555555555abcdef0123456789', scopes: ['read'], vaults: ['..'], ledgers: [] },
      ]),
    });
    expect(found).toEqual([
      'API_KEYS[0].scopes: is required',
      "API_KEYS[0]: unknown option 'scope' (did you mean 'scopes'?). Valid options: name, key, sha256, scopes, vaults, ledgers",
      'API_KEYS[1].scopes[0]: must be one of read, withdraw, admin',
      'API_KEYS[2]: must have exactly one of key or sha256',
      'API_KEYS[3].vaults[0]: vaultId is 1-128 letters, digits, . _ : - beginning with a letter or digit (custody vault ids are UUIDs)',
      'API_KEYS[3].ledgers: list at least one ledger, or leave ledgers out for every ledger',
    ]);
    expect(found.join('\n')).not.toContain('plain-key');
  });

  it('refuses a plain API key shorter than 32 characters at start, naming it and the way out; a sha256 is unaffected', () => {
    const eth = ledgers({ eth: { rpcUrl: 'https://node.example' } });
    const short = 'k'.repeat(31);
    const found = problems({ ...eth, API_KEYS: JSON.stringify([{ name: 'weak', key: short, scopes: ['read'] }]) });
    expect(found).toEqual(['API_KEYS[0].key: must be at least 32 characters: make one with `openssl rand -hex 24`, or give its `sha256` instead']);
    expect(found.join('\n')).not.toContain(short);
    expect(problems({ ...eth, API_KEYS: JSON.stringify([{ name: 'ok', key: 'k'.repeat(32), scopes: ['read'] }]) })).toEqual([]);
    expect(problems({ ...eth, API_KEYS: JSON.stringify([{ name: 'hashed', sha256: 'a'.repeat(64), scopes: ['read'] }]) })).toEqual([]);
  });

  it('refuses API_KEYS without a key: every keyed route would answer 401 for good', () => {
    const eth = ledgers({ eth: { rpcUrl: 'https://node.example' } });
    expect(problems({ ...eth, API_KEYS: '[]' })).toEqual(['API_KEYS: must list at least one key']);
    expect(() => loadConfig({ SANDBOX: 'true', API_KEYS: '[]' }, families, 'v')).toThrow(/API_KEYS: must list at least one key/);
  });

  it('takes HOST as an IP address or a host name alone, naming HOST for a port, a scheme or a path', () => {
    const eth = ledgers({ eth: { rpcUrl: 'https://node.example' } });
    for (const host of ['localhost:8080', 'http://0.0.0.0', '0.0.0.0/api', '[::1]', '10.0.0.256']) {
      expect(problems({ ...eth, HOST: host })).toEqual([
        `HOST: must be an IP address (0.0.0.0, ::, 127.0.0.1) or a host name alone: no scheme, port, path or brackets, got '${host}'`,
      ]);
    }
    for (const host of ['0.0.0.0', '::', '::1', 'fe80::1', 'localhost', 'api.internal', 'byow_api']) {
      expect(loadConfig({ ...production, ...eth, HOST: host }, families, 'v').host).toBe(host);
    }
  });

  it('takes CALLBACK_ALLOWED_IPS as IP addresses, in the spelling the peer is compared in; refuses ranges, host names and an empty list', () => {
    const eth = ledgers({ eth: { rpcUrl: 'https://node.example' } });
    const ips = (value: string) => loadConfig({ ...production, ...eth, CALLBACK_ALLOWED_IPS: value }, families, 'v').callbackAllowedIps;
    expect(ips(' 10.0.0.7 , FE80::1,::ffff:10.0.0.8, fe80:0:0:0:0:0:0:1,')).toEqual(['10.0.0.7', 'fe80::1', '10.0.0.8']);
    expect(problems({ ...eth, CALLBACK_ALLOWED_IPS: '10.0.0.0/8,custody.example.com' })).toEqual([
      "CALLBACK_ALLOWED_IPS: must be IP addresses separated by commas, such as 10.0.0.7,fd00::7 (no ranges, no host names); found '10.0.0.0/8', 'custody.example.com' (not an IP address), got '10.0.0.0/8,custody.example.com'",
    ]);
    expect(problems({ ...eth, CALLBACK_ALLOWED_IPS: ',' })).toEqual([
      "CALLBACK_ALLOWED_IPS: must be IP addresses separated by commas, such as 10.0.0.7,fd00::7 (no ranges, no host names); found no address, got ','",
    ]);
  });

  it('validates the sandbox variables with the rest; empty counts as unset', () => {
    expect(problems({ SANDBOX_CUSTODY_PORT: 'abc', SANDBOX_API_KEY: 'short' })).toEqual([
      'SANDBOX_API_KEY: must be at least 32 characters: make one with `openssl rand -hex 24`, or give its `sha256` instead',
      "SANDBOX_CUSTODY_PORT: must be a whole number from 1 to 65535, got 'abc'",
    ]);
    for (const port of ['70000', '0'])
      expect(() => loadConfig({ SANDBOX_CUSTODY_PORT: port }, families, 'v')).toThrow(/SANDBOX_CUSTODY_PORT: must be a whole number from 1 to 65535/);
    const empty = loadConfig({ SANDBOX_CUSTODY_PORT: '', SANDBOX_API_KEY: '', SANDBOX_CUSTODY_PASSWORD: '' }, families, 'v');
    expect([empty.sandboxCustodyPort, empty.sandboxApiKey, empty.sandboxCustodyPassword]).toEqual([8090, undefined, undefined]);
    const set = loadConfig(
      { SANDBOX_CUSTODY_PORT: '18090', SANDBOX_API_KEY: 'sandbox-key-0123456789abcdef0123456789', SANDBOX_CUSTODY_PASSWORD: 'pw' },
      families,
      'v',
    );
    expect([set.sandboxCustodyPort, set.sandboxApiKey, set.sandboxCustodyPassword]).toEqual([18090, 'sandbox-key-0123456789abcdef0123456789', 'pw']);
    expect(set.secrets).toEqual(expect.arrayContaining(['sandbox-key-0123456789abcdef0123456789', 'pw']));
  });

  it('gives the sandbox its own key prefix unless REDIS_PREFIX says otherwise', () => {
    expect(loadConfig({}, families, 'v').keyPrefix).toBe(SANDBOX_PREFIX);
    expect(loadConfig({ REDIS_PREFIX: 'mine' }, families, 'v').keyPrefix).toBe('mine');
    expect(loadConfig({ ...production, ...ledgers({ eth: { rpcUrl: 'https://node.example' } }) }, families, 'v').keyPrefix).toBe('byow');
    expect(SANDBOX_PREFIX).not.toBe('byow');
  });
});
