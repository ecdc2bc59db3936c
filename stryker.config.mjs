// Mutation testing of the money-critical modules (docs/testing.md): npm run mutate, or one
// module with npm run mutate -- --mutate src/ledger/amounts.ts. Not part of npm test.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/*', './stryker.ignore-script-names.mjs'],
  ignorers: ['lua-script-names'],
  // The unit tests of these modules only (fake nodes, the real Redis); of those, each mutant runs
  // the tests that reach its line, and a mutant of module-level code the test files that import it.
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  // A mutant the compiler refuses is no test gap: it is left out of the score instead of run.
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutate.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/ledger/signatures.ts',
    'src/ledger/secp256k1.ts',
    'src/ledger/amounts.ts',
    'src/ledger/reservations.ts',
    'adaptors/*/logic/fees.ts',
    'adaptors/bitcoin/logic/coin-selection.ts',
    'src/withdrawals/sending/send-order.ts',
    'src/withdrawals/store/idempotency.ts',
    'src/security/callback-hmac.ts',
    'src/platform/http-client.ts',
  ],
  // The machine is shared: two test processes at most.
  concurrency: 2,
  timeoutMS: 5_000,
  // Only mutants whose code or tests changed since the last run are tested again.
  incremental: true,
  incrementalFile: '.stryker/incremental.json',
  tempDirName: '.stryker/tmp',
  cleanTempDir: 'always',
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: '.stryker/report.html' },
  jsonReporter: { fileName: '.stryker/report.json' },
  // The run fails (exit code 1) when the mutation score of the modules mutated falls below 85 %.
  thresholds: { high: 95, low: 85, break: 85 },
};
