import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/logger.js';

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
        API_KEYS: JSON.stringify([{ name: 'k', key: 'plain-api-key-1234567890', scopes: ['read'] }]),
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
    logger.info({ url: 'https://mainnet.example/v3/SUPERSECRETPROJECTKEY' }, 'calling plain-api-key-1234567890 a-callback-secret-of-some-length');
    expect(out).not.toContain('a-callback-secret-of-some-length');
    expect(out).not.toContain('SUPERSECRETPROJECTKEY');
    expect(out).not.toContain('plain-api-key-1234567890');
    expect(out).toContain('[REDACTED]');
  });
});
