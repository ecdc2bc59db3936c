/**
 * The worker process (`npm run worker`): assembles, broadcasts and tracks signed withdrawals.
 * Run as many as you like against one Redis. Finishes its current jobs on SIGTERM/SIGINT.
 * Built in app/worker-process.ts.
 */
import { exitOnStartFailure } from './platform/process-lifecycle.js';
import { startWorkerProcess } from './app/worker-process.js';

startWorkerProcess().catch(exitOnStartFailure);
