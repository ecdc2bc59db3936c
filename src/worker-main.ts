/**
 * The worker process (`npm run worker`): assembles, broadcasts and tracks signed withdrawals.
 * The signing pipeline's worker is wired here once it exists.
 */
process.stderr.write('worker: no queue consumers are configured in this version\n');
