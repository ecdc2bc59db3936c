/**
 * The worker process (`npm run worker`): assembles, broadcasts and tracks signed withdrawals.
 * Run as many as you like against one Redis. Finishes its current jobs on SIGTERM/SIGINT.
 * Built in processes.ts.
 */
import { exitOnStartFailure } from './platform/process-lifecycle.js';
import { startWorkerProcess } from './app/processes.js';

startWorkerProcess().catch(exitOnStartFailure);
