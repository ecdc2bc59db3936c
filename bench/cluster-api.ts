/**
 * `node --import tsx bench/cluster-api.ts <n>`: the API (src/main.ts, unchanged) as n
 * processes sharing one port through node:cluster, as a host with more cores would run it.
 * The bench starts it instead of one API process when BENCH_API_PROCESSES is above 1.
 * Each process takes its own flags (`--cpu-prof` writes one profile per process).
 */
import cluster from 'node:cluster';
import path from 'node:path';
import { ROOT } from './procs.js';

const n = Number(process.argv[2] ?? 2);
cluster.setupPrimary({ exec: path.join(ROOT, 'src', 'main.ts'), execArgv: process.execArgv });
const workers = Array.from({ length: n }, () => cluster.fork());
for (const w of workers) w.on('exit', (code, signal) => signal !== 'SIGTERM' && code !== 0 && process.exit(1));
process.on('SIGTERM', () => {
  let left = workers.length;
  for (const w of workers) {
    w.once('exit', () => --left === 0 && process.exit(0));
    w.kill('SIGTERM');
  }
});
