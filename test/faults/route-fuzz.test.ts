import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { ADMIN_KEY, READ_KEY, TEST_CALLBACK_SECRET, WITHDRAW_KEY } from '../helpers/service.js';
import { RECIPIENT, withdraw } from '../pipeline/support.js';
import { fuzzRoutes, fuzzSeed, type OpenApiLike } from './route-fuzz.js';

/**
 * Hostile input as a test: random requests over every documented route of the real service
 * (anvil, custody emulator, workers running), bounded in count. `npm run faults` runs more.
 */
describe('hostile input over every route: no 5xx, every error in the AppError shape, the service stays up', () => {
  let chain: TestChain;
  let loop: Loop;
  let known: Record<string, string[]>;

  beforeAll(async () => {
    chain = await startTestChain();
    loop = await startLoop({ ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 } });
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    const w = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.001', description: 'fuzz fixture' });
    expect(w.status).toBe(200);
    known = {
      ledgerId: ['ethdev', 'eth', 'btc'],
      vaultId: [v.vaultId],
      address: [v.address, RECIPIENT],
      operationID: [w.body.operationID as string],
      id: [w.body.operationID as string],
    };
  });
  afterAll(async () => {
    await loop?.stop();
    await chain?.stop();
  });

  it('answers 400 random requests with no contract violation', async () => {
    const document = (await loop.svc.call('GET', '/api/v1.0/openapi.json')).body as OpenApiLike;
    // A failure names the seed and the shrunk request; FUZZ_SEED=<seed> replays the draws.
    const seed = fuzzSeed();
    console.log(`route fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
    const target = { baseUrl: loop.svc.url, document, known, keys: [ADMIN_KEY, READ_KEY, WITHDRAW_KEY], callbackSecret: TEST_CALLBACK_SECRET };
    const result = await fuzzRoutes(target, 400, seed, { strict: true });
    expect(result.seed).toBe(seed);
    expect(result.violations).toEqual([]);
    expect(result.requests).toBeGreaterThanOrEqual(400);
    // The draw reached past authentication and validation, not only the front door.
    const passed = Object.entries(result.byStatus)
      .filter(([s]) => Number(s) < 300)
      .reduce((n, [, c]) => n + c, 0);
    expect(passed).toBeGreaterThan(0);
    expect((await loop.svc.call('GET', '/api/v1.0/status')).status).toBe(200);
  }, 180_000);
});
