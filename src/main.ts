/**
 * The API process (`npm start`): wallet layer, vault registry, withdrawals, the signing
 * callback receiver and the job dashboard; in the sandbox also the local nodes, the custody
 * emulator and the queue workers. Built in processes.ts.
 */
import { exitOnStartFailure } from './platform/process-lifecycle.js';
import { startApiProcess } from './app/processes.js';

startApiProcess().catch(exitOnStartFailure);
