import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Status calls share the dependency checks: however many arrive at once or one after the
 * other within HEALTH_CACHE_MS, each dependency is checked once.
 */
describe('status routes share their dependency checks', () => {
  let svc: TestService;
  let custodyChecks = 0;
  let otherChecks = 0;
  let ledgerChecks = 0;

  beforeAll(async () => {
    const closed = await freePort();
    svc = await startTestService(
      { ethdev: { rpcUrl: `http://127.0.0.1:${closed}` } },
      {
        env: { HEALTH_CACHE_MS: '30000' },
        healthChecks: {
          custody: async () => {
            custodyChecks += 1;
            await new Promise((r) => setTimeout(r, 50));
            return { healthy: true };
          },
          other: async () => {
            otherChecks += 1;
            return { healthy: true };
          },
        },
      },
    );
    const ledger = svc.core.registry.find('ethdev');
    if (!ledger) throw new Error('no ethdev ledger');
    const health = ledger.health.bind(ledger);
    ledger.health = () => {
      ledgerChecks += 1;
      return health();
    };
  });
  afterAll(() => svc.stop());

  it('100 concurrent /status and 50 coin-type status calls, then more one by one, check each dependency once', async () => {
    const calls = [
      ...Array.from({ length: 100 }, () => svc.call('GET', '/api/v1.0/status')),
      ...Array.from({ length: 50 }, () => svc.call('GET', '/ethdev/api/v1.0/status')),
    ];
    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.status).filter((s) => s !== 200 && s !== 500)).toEqual([]);
    expect(answers[0]?.body.dependencies.custody).toEqual({ healthy: true });
    for (let i = 0; i < 5; i++) {
      expect((await svc.call('GET', '/api/v1.0/status')).body.dependencies.other).toEqual({ healthy: true });
      expect((await svc.call('GET', '/ethdev/api/v1.0/status')).body.custody).toEqual({ healthy: true });
    }
    expect(custodyChecks).toBe(1);
    expect(otherChecks).toBe(1);
    expect(ledgerChecks).toBe(1);
  });
});
