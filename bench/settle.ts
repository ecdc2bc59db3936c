/** A service child's memory after a load, once it has settled, with where its RSS sits. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Child, ChildStats } from './procs.js';
import { r1 } from './stats.js';

const MB = 1024 * 1024;

export interface MemoryFigure {
  /** RSS one second after the load ended. */
  rssAfterLoadMB: number;
  /** RSS once it stopped falling (V8 shrinks its heap some seconds after the process goes idle). */
  rssMB: number;
  settledAfterSeconds: number;
  peakRssMB: number;
  heapUsedMB: number;
  /** Pages V8 holds for its heap (all spaces), used or not. */
  heapCommittedMB: number;
  /** Of those, the young generation (semi-spaces), sized by --max-semi-space-size. */
  newSpaceMB: number;
  /** Buffers and other memory outside the V8 heap that JS objects hold. */
  externalMB: number;
  /** Full (mark-compact) collections since the process started: none means the heap only grew. */
  majorGCs: number;
}

/**
 * Reads the child's memory once a second for at least `minSeconds`, then until RSS has not
 * fallen by more than 1 MB over `window` readings, or `maxSeconds` passed. What is left is
 * what the process keeps. V8's memory reducer first asks whether the process is idle 8 s after
 * its last full collection (--gc-memory-reducer-start-delay-ms), then every 8 s, and shrinks
 * the heap only when it finds allocation low on every count: with these readings (a message
 * to the child each second) its first or second ask may find it busy, so the API's heap was
 * seen reduced 15.5 s after a load ended (`--trace-memory-reducer`), and a 15 s minimum
 * sometimes read it before (146.7 and 139.9 MB in runs that caught it, 177.2 and 191.3 in
 * two that did not). 40 s gives the reducer four asks.
 */
export async function settledMemory(child: Child, minSeconds = 40, maxSeconds = 60, window = 5): Promise<MemoryFigure> {
  await sleep(1000);
  const first = await child.stats();
  const readings: ChildStats[] = [first];
  const started = Date.now();
  while ((Date.now() - started) / 1000 < maxSeconds) {
    const recent = readings.slice(-window);
    const settled = recent.length === window && (recent[0] as ChildStats).memory.rss - (recent[window - 1] as ChildStats).memory.rss < MB;
    if (settled && readings.length >= minSeconds) break;
    await sleep(1000);
    readings.push(await child.stats());
  }
  const last = readings[readings.length - 1] as ChildStats;
  return {
    rssAfterLoadMB: r1(first.memory.rss / MB),
    rssMB: r1(last.memory.rss / MB),
    settledAfterSeconds: readings.length,
    peakRssMB: r1(last.peakRss / MB),
    heapUsedMB: r1(last.memory.heapUsed / MB),
    heapCommittedMB: r1(last.v8.physical / MB),
    newSpaceMB: r1((last.v8.spaces.new_space?.physical ?? 0) / MB),
    externalMB: r1(last.memory.external / MB),
    majorGCs: last.gc.major,
  };
}
