/**
 * `GET /status` latency, asked one after another from outside the API, while `batches`
 * concurrent address-from-publickey requests of `keys` run: what a heavy open route costs
 * every other client of the same API process. The same API's idle `/status`, asked just
 * before, is the reference of the same run.
 */
import { r1 } from './stats.js';

export interface StatusLatency {
  count: number;
  msP50: number;
  msP99: number;
  msMax: number;
}

export interface StatusUnderBatches {
  batches: number;
  keysPerBatch: number;
  /** Wall time until the last batch answered. */
  batchesMs: number;
  /** `/status` with nothing else running. */
  idle: StatusLatency;
  /** `/status` while the batches run. */
  loaded: StatusLatency;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function latency(times: number[]): StatusLatency {
  const sorted = [...times].sort((a, b) => a - b);
  return { count: sorted.length, msP50: r1(percentile(sorted, 50)), msP99: r1(percentile(sorted, 99)), msMax: r1(sorted.at(-1) ?? NaN) };
}

async function askStatus(apiUrl: string): Promise<number> {
  const asked = performance.now();
  const res = await fetch(`${apiUrl}/api/v1.0/status`);
  await res.arrayBuffer();
  return performance.now() - asked;
}

async function derive(apiUrl: string, ledgerId: string, body: string): Promise<void> {
  const res = await fetch(`${apiUrl}/api/v1.0/ledgers/${ledgerId}/address-from-publickey`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (res.status !== 200) throw new Error(`address-from-publickey answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  await res.arrayBuffer();
}

export async function statusUnderBatches(apiUrl: string, ledgerId: string, keys: string[], batches = 4, idleRequests = 200): Promise<StatusUnderBatches> {
  // Steady state: the derivation threads start with the first request, which waits for them.
  await derive(apiUrl, ledgerId, JSON.stringify({ keys: keys.slice(0, 1) }));
  const idle: number[] = [];
  for (let i = 0; i < idleRequests; i++) idle.push(await askStatus(apiUrl));
  const body = JSON.stringify({ keys });
  const started = performance.now();
  let running = true;
  const all = Promise.all(Array.from({ length: batches }, () => derive(apiUrl, ledgerId, body))).finally(() => {
    running = false;
  });
  const loaded: number[] = [];
  while (running) {
    const ms = await askStatus(apiUrl);
    if (running) loaded.push(ms);
  }
  await all;
  return { batches, keysPerBatch: keys.length, batchesMs: Math.round(performance.now() - started), idle: latency(idle), loaded: latency(loaded) };
}
