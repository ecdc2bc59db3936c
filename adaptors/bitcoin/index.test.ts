import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { Reservations } from '../../src/ledger/reservations.js';
import { bitcoinFamily } from './index.js';

const deps = () => {
  const redis = {} as Redis;
  return { logger: pino({ level: 'silent' }), fetch, reservations: new Reservations(redis, 'test:') };
};

describe('bitcoin family', () => {
  it('knows btc, btctest and btcregtest, and validates options with defaults', () => {
    expect(bitcoinFamily.knownLedgers).toEqual(['btc', 'btctest', 'btcregtest']);
    const o = bitcoinFamily.optionsSchema.parse({ url: 'https://blockstream.info/api' });
    expect(o).toMatchObject({ backend: 'esplora', defaultAddressFormat: 'p2wpkh', reservationTtlMs: 86_400_000, maxFeeRate: 1000 });
    expect(bitcoinFamily.optionsSchema.safeParse({ backend: 'electrum', url: 'x' }).success).toBe(false);
    expect(bitcoinFamily.sensitiveOptions).toEqual(['url', 'username', 'password']);
  });

  it('builds adaptors whose network, confirmations and formats follow the ledger id and options', () => {
    const btc = bitcoinFamily.create('btc', bitcoinFamily.optionsSchema.parse({ url: 'http://127.0.0.1:1' }), deps());
    expect(btc).toMatchObject({ family: 'bitcoin', network: 'mainnet', scheme: 'secp256k1', confirmations: 3 });
    expect(btc.nativeAsset).toEqual({ symbol: 'BTC', decimals: 8, native: true });
    expect(btc.feeLevels()).toEqual(['MEDIUM', 'HIGH', 'LOW']);
    expect(btc.addressFormats()).toEqual(['p2wpkh', 'p2sh-p2wpkh', 'p2pkh']);
    const t4 = bitcoinFamily.create(
      'btctest',
      bitcoinFamily.optionsSchema.parse({ network: 'testnet4', url: 'http://127.0.0.1:1', defaultAddressFormat: 'p2pkh' }),
      deps(),
    );
    expect(t4.network).toBe('testnet4');
    expect(t4.addressFormats()[0]).toBe('p2pkh');
    expect(t4.isValidAddress('tb1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlwsxeelp')).toBe(true);
    expect(btc.isValidAddress('tb1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlwsxeelp')).toBe(false);
  });

  it('reports an unreachable back end as unhealthy without throwing', async () => {
    const btc = bitcoinFamily.create('btcregtest', bitcoinFamily.optionsSchema.parse({ url: 'http://127.0.0.1:1' }), deps());
    const h = await btc.health();
    expect(h.healthy).toBe(false);
    expect(h.errorMessage).toMatch(/unreachable/);
  });
});
