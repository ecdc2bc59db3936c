/**
 * Loaded with `--import` into the service processes the bench starts (src/main.ts,
 * src/worker-main.ts), so they run unchanged. It records every transaction the process sends
 * to a node, of every family (src/dev/outgoing-http.ts): how long the node took (request sent → answer
 * read), when the answer was read (epoch ms, sub-millisecond: `performance.timeOrigin + now()`)
 * and the transaction's identity; it counts the JSON-RPC requests sent to the node (HTTP round
 * trips, and calls by method, a batch counting once as a round trip), and answers the bench's
 * messages:
 * - `counters`: the number of sends so far and the GC counts;
 * - `stats`: those figures, process.memoryUsage(), the peak RSS, V8's heap spaces, the GC
 *   counts and process.cpuUsage();
 * - `{kind: 'heap-snapshot', file}`: writes a V8 heap snapshot there (to compare two of them
 *   in Chrome DevTools' Memory tab and see what holds the heap), answers with the file.
 */
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { createHash } from 'node:crypto';
import { keccak256 } from 'ethers';
import { sentTransactions, watchHttpRequests } from '../src/dev/outgoing-http.js';

// The raw bytes are kept and hashed, once each, when the bench asks: hashing on the send path
// would bill the measured process for the measurement. An Ethereum send's id is its txid (the
// bench matches it with the withdrawals'); the other families' is the SHA-256 of the
// transaction as sent, enough to tell a transaction sent twice from two transactions.
const sends: { raw?: string; eth?: boolean; txid?: string; ms: number; at: number }[] = [];
const hashedSends = (): { txid: string; ms: number; at: number }[] =>
  sends.map((s) => {
    if (s.raw !== undefined) {
      s.txid = s.eth ? keccak256(s.raw) : createHash('sha256').update(s.raw).digest('hex');
      delete s.raw;
    }
    return { txid: s.txid as string, ms: s.ms, at: s.at };
  });
const rpc = { roundTrips: 0, calls: {} as Record<string, number> };
const METHOD = /"method":"([\w]+)"/g;

// The service's HTTP clients go through node:http (keepAliveFetch): every request is looked
// at once its body is written, and a send is timed from then to the end of its answer.
watchHttpRequests((req) => {
  if (req.body.includes('"jsonrpc"')) {
    rpc.roundTrips += 1;
    for (const m of req.body.matchAll(METHOD)) rpc.calls[m[1] as string] = (rpc.calls[m[1] as string] ?? 0) + 1;
  }
  const sent = sentTransactions(req);
  if (!sent) return undefined;
  const started = performance.now();
  return {
    answered: (res, deliver) => {
      res.once('end', () => {
        const ended = performance.now();
        for (const raw of sent.raws) sends.push({ raw, eth: sent.eth, ms: ended - started, at: performance.timeOrigin + ended });
      });
      deliver();
    },
  };
});

/** Where the RSS goes inside V8: committed (physical) bytes per heap space, and V8's own malloc. */
function v8Memory(): { spaces: Record<string, { physical: number; used: number }>; physical: number; malloced: number; peakMalloced: number } {
  const h = getHeapStatistics();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { physical: s.physical_space_size, used: s.space_used_size }]));
  return { spaces, physical: h.total_physical_size, malloced: h.malloced_memory, peakMalloced: h.peak_malloced_memory };
}

/** Garbage collections so far: scavenges of the young generation, and full mark-compacts. */
const gc = { minor: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
  }
}).observe({ entryTypes: ['gc'] });

let peakRss = 0;
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 250).unref();

process.on('message', (m: unknown) => {
  // Cheap enough to poll while a drain runs (stats hashes and ships every send).
  if (m === 'counters') process.send?.({ kind: 'counters', sent: sends.length, gc });
  if (m === 'stats') {
    const memory = process.memoryUsage();
    // The interval samples every 250 ms; the reading in hand counts too.
    peakRss = Math.max(peakRss, memory.rss);
    process.send?.({ kind: 'stats', memory, peakRss, sends: hashedSends(), rpc, cpu: process.cpuUsage(), v8: v8Memory(), gc });
  }
  const snapshot = m as { kind?: string; file?: string } | null;
  if (snapshot?.kind === 'heap-snapshot' && snapshot.file) process.send?.({ kind: 'heap-snapshot', file: writeHeapSnapshot(snapshot.file) });
});
