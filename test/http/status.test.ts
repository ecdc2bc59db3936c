import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { READ_KEY, startTestService, type TestService } from '../helpers/service.js';

describe('GET /status with failing dependencies', () => {
  let svc: TestService;

  beforeAll(async () => {
    const closed = await freePort();
    svc = await startTestService(
      { ethdev: { rpcUrl: `http://127.0.0.1:${closed}` }, eth: { rpcUrl: `http://127.0.0.1:${closed}` } },
      {
        env: { HEALTH_TIMEOUT_MS: '300' },
        healthChecks: {
          custody: () => new Promise(() => undefined),
          flaky: () => Promise.reject(new Error('boom')),
        },
      },
    );
  });
  afterAll(() => svc.stop());

  it('answers 200 with healthy:false and an errorMessage for each failing dependency', async () => {
    const { status, body } = await svc.call('GET', '/api/v1.0/status');
    expect(status).toBe(200);
    expect(body.healthy).toBe(false);
    expect(body.redis).toEqual({ healthy: true });
    expect(body.ledgers.ethdev.healthy).toBe(false);
    expect(body.ledgers.ethdev.errorMessage).toMatch(/unreachable/);
    expect(body.dependencies.custody).toEqual({ healthy: false, errorMessage: 'no answer within 300 ms' });
    expect(body.dependencies.flaky).toEqual({ healthy: false, errorMessage: 'boom' });
  });

  it('a balance read against a node that is down → 503 in the AppError shape, not 500', async () => {
    const { status, body, headers } = await svc.call('GET', '/api/v1.0/ledgers/eth/addresses/0x8240Fd14931292B85C850514c8a4eBd35E56EDA4/balance', {
      key: READ_KEY,
    });
    expect(status).toBe(503);
    expect(body.errCode).toBe('ERR_NODE_UNAVAILABLE');
    expect(headers.get('retry-after')).toBe('5');
  });
});

describe('network check at start', () => {
  it('refuses a ledger whose node serves another chain, and only warns for an unreachable one', async () => {
    const { startAnvil } = await import('../../adaptors/ethereum/local-node/local-anvil.js');
    const { checkLedgerNetworks, WrongNetworkError } = await import('../../src/ledger/boot-check.js');
    const anvil = await startAnvil();
    const closed = await freePort();
    const svc = await startTestService({ eth: { rpcUrl: anvil.url }, ethdev: { rpcUrl: `http://127.0.0.1:${closed}` } });
    try {
      const err = await checkLedgerNetworks(svc.core.registry, svc.core.logger).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WrongNetworkError);
      expect((err as InstanceType<typeof WrongNetworkError>).problems).toEqual(['eth: node is on chain 31337, expected 1']);
      const status = await svc.call('GET', '/api/v1.0/status');
      expect(status.body.ledgers.eth).toMatchObject({ healthy: false, wrongNetwork: true, network: 'chain 31337' });
    } finally {
      await svc.stop();
      await anvil.stop();
    }
  });
});
