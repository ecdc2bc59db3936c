import { defineConfig } from 'vitest/config';

/**
 * The unit tests of the money-critical modules, for mutation runs (stryker.config.mjs): fake
 * nodes and the real Redis only, so each mutant is judged in seconds. Not used by npm test.
 */
export default defineConfig({
  test: {
    include: [
      'test/core/amounts.test.ts',
      'test/core/signatures.test.ts',
      'test/core/secp256k1.test.ts',
      'test/core/ed25519.test.ts',
      'test/core/single-payload.test.ts',
      'test/core/reservations.test.ts',
      'test/core/reservations-orphan-race.test.ts',
      'test/core/spend-reservations.test.ts',
      'test/core/reserve-and-build.test.ts',
      'test/core/send-order.test.ts',
      'test/core/idempotency.test.ts',
      'test/core/http-client.test.ts',
      'test/security/*.test.ts',
      'adaptors/*/logic/fees*.test.ts',
      'adaptors/bitcoin/logic/coin-selection.test.ts',
    ],
    globalSetup: ['test/global-setup.ts'],
    pool: 'threads',
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { NODE_BACKEND: 'js' },
  },
});
