/**
 * Loaded with `--import` into the service processes the bench starts (src/main.ts,
 * src/worker-main.ts), so they run unchanged. It records how long each
 * `eth_sendRawTransaction` takes at the node (request sent → answer read) and when the answer
 * was read (epoch ms, sub-millisecond: `performance.timeOrigin + now()`), keyed by txid,
 * counts the JSON-RPC requests sent to the node (HTTP round trips, and calls by method, a
 * batch counting once as a round trip), and answers the bench's `stats` message with those
 * figures, process.memoryUsage() and process.cpuUsage().
 */
import { performance } from 'node:perf_hooks';
import { keccak256 } from 'ethers';

const sends: { txid: string; ms: number; at: number }[] = [];
const rpc = { roundTrips: 0, calls: {} as Record<string, number> };
const realFetch = globalThis.fetch;
const METHOD = /"method":"([\w]+)"/g;

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const body = init?.body;
  if (typeof body === 'string' && body.includes('"jsonrpc"')) {
    rpc.roundTrips += 1;
    for (const m of body.matchAll(METHOD)) rpc.calls[m[1] as string] = (rpc.calls[m[1] as string] ?? 0) + 1;
  }
  if (typeof body !== 'string' || !body.includes('"eth_sendRawTransaction"')) return realFetch(input, init);
  const started = performance.now();
  const res = await realFetch(input, init);
  const text = await res.text();
  const ended = performance.now();
  const ms = ended - started;
  try {
    const calls = [JSON.parse(body)].flat() as { method: string; params: string[] }[];
    for (const c of calls) if (c.method === 'eth_sendRawTransaction' && c.params[0]) sends.push({ txid: keccak256(c.params[0]), ms, at: performance.timeOrigin + ended });
  } catch {
    /* not ours to judge */
  }
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
};

let peakRss = 0;
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 250).unref();

process.on('message', (m) => {
  if (m === 'stats') process.send?.({ kind: 'stats', memory: process.memoryUsage(), peakRss, sends, rpc, cpu: process.cpuUsage() });
});
