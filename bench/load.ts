/**
 * The load generator, run as its own process (`node --import tsx bench/load.ts <spec.json>`)
 * so it never shares an event loop with the service it measures. It runs autocannon passes
 * one after the other and prints their figures as one JSON line on stdout.
 *
 * Bodies come from a file (one JSON text per line); each request takes the next one, so a
 * pass of `amount` requests over `amount` distinct bodies sends each exactly once. With
 * `hmacSecret`, every request gets fresh callback HMAC headers over its raw body.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  connections: number;
  /** Requests to send; or `duration` seconds. */
  amount?: number;
  duration?: number;
  bodiesFile?: string;
  hmacSecret?: string;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU of this load generator per request (ms): its share of the machine. */
  loadCpuMs: number;
}

function pass(spec: LoadSpec): Promise<LoadResult> {
  const bodies = spec.bodiesFile ? readFileSync(spec.bodiesFile, 'utf8').split('\n').filter(Boolean) : [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const instance = autocannon({
    url: spec.url,
    method: spec.method,
    connections: spec.connections,
    ...(spec.amount ? { amount: spec.amount } : { duration: spec.duration ?? 5 }),
    timeout: 30,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          if (bodies.length === 0) return req;
          const body = bodies[next++ % bodies.length] as string;
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (spec.hmacSecret) {
            const timestamp = String(Math.floor(Date.now() / 1000));
            headers['x-callback-timestamp'] = timestamp;
            headers['x-callback-signature'] = `sha256=${createHmac('sha256', spec.hmacSecret).update(`${timestamp}.`).update(body).digest('hex')}`;
          }
          return { ...req, method: spec.method, body, headers };
        },
      },
    ],
  });
  // autocannon looks whether `amount` is reached once a second, so its own duration is whole
  // seconds: 20,000 requests answered in 2.2 s read 3.02 s. A pass of `amount` requests lasts
  // from its start (connections opened) to its last answer, timed here.
  let lastAnswerAt = startedAt;
  instance.on('response', () => {
    lastAnswerAt = performance.now();
  });
  return new Promise((resolve) =>
    instance.on('done', (r) => {
      const seconds = spec.amount ? (lastAnswerAt - startedAt) / 1000 : r.duration;
      resolve({
        requests: r.requests.total,
        seconds,
        rps: r.requests.total / seconds,
        mean: r.latency.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        max: r.latency.max,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        loadCpuMs: (() => {
          const used = process.cpuUsage(cpuBefore);
          return (used.user + used.system) / 1000 / Math.max(1, r.requests.total);
        })(),
      });
    }),
  );
}

/** Runs the passes of the spec file one after the other; prints their results as one JSON array. */
const specs = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as LoadSpec[];
const results: LoadResult[] = [];
for (const spec of specs) results.push(await pass(spec));
process.stdout.write(`${JSON.stringify(results)}\n`);
