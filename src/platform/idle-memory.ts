import { Script } from 'node:vm';

/**
 * Often enough that the C++ heap's allocation rate V8 samples (every 8 s while it waits to
 * reduce memory) has not decayed to exactly zero; seldom enough that most samples see no new
 * allocation and read it as low. 30 s was measured (docs/performance.md, "Memory: what held it").
 */
export const IDLE_MEMORY_NUDGE_MS = 30_000;

/**
 * Lets V8 give memory back once the process goes idle, as it did up to Node 22.
 *
 * V8's memory reducer runs the full collections that shrink the young generation, compact the
 * old one and free its pooled pages only when it finds the allocation rate low on three
 * counts: the young generation, the old generation and the embedder's C++ heap (cppgc). Since
 * V8 13.1 (Node 24) a rate that has seen no allocation at all reads as exactly 0, which the
 * check takes for the highest rate there is: a process that allocates nothing on the C++ heap
 * (plain JavaScript, as here) is never found idle, and only the reducer's watchdog (100 s after
 * the last full collection, so postponed by every ordinary one) ever starts it. The built
 * worker then stayed at ~190 MB RSS after a load, with ~45 MB alive.
 *
 * Compiling an empty `vm.Script` allocates one small object on the C++ heap: done now and then,
 * that rate is low but not zero, and the young and old generations decide again. Returns a stop
 * function; the timer does not keep the process alive.
 */
export function startIdleMemoryRelease(everyMs = IDLE_MEMORY_NUDGE_MS): () => void {
  const nudge = () => void new Script('');
  nudge();
  const timer = setInterval(nudge, everyMs).unref();
  return () => clearInterval(timer);
}
