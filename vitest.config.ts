import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'adaptors/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Most test files spend their time waiting on a node, Redis or a child process, so even a
    // two-core machine runs two files at once (vitest's own default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The files of one worker share its module cache: loading ethers, the ledger SDKs and the
    // service anew for each of 200-odd files was half the run. This holds because no module
    // keeps state (dependencies are passed in) and a test that touches a process-wide thing
    // (an environment variable, a listener, a spy) puts it back.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { NODE_BACKEND: 'js' },
  },
});
