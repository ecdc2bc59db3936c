/**
 * Time a CPU-bound loop may hold the event loop before other work runs. Well under the
 * ~20 ms an open route may block, so a slice plus the request's own parsing stays below it.
 */
export const SLICE_MS = 8;

/**
 * For a loop whose steps cannot be listed up front (a BIP44 scan deriving until its gap ends):
 * `await` the returned function between steps; once `sliceMs` of wall time passed since the
 * last yield it yields to the event loop (setImmediate, so timers and pending I/O run first).
 */
export function sliceYielder(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

interface Job {
  next: () => boolean;
}

/**
 * Runs CPU-bound maps in slices of `sliceMs` of wall time, shared by every request in flight:
 * one slice per turn of the event loop, the jobs taking turns item by item, then a yield
 * (setImmediate, so timers and pending I/O run first). Four concurrent batches therefore
 * hold the loop no longer than one. The slice is sized by measured cost, not by a count: a
 * key that takes 100 µs to derive and one that takes 5 µs both fill one slice.
 */
export class TimeSlicer {
  private readonly jobs: Job[] = [];
  private scheduled = false;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Maps `items` with `fn`; an error `fn` throws ends this map as it would a plain `Array.map`. */
  map<T, R>(items: readonly T[], fn: (item: T, index: number) => R): Promise<R[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<R[]>((resolve, reject) => {
      const out = new Array<R>(items.length);
      let i = 0;
      this.jobs.push({
        next: () => {
          try {
            out[i] = fn(items[i] as T, i);
          } catch (e) {
            reject(e);
            return true;
          }
          if (++i < items.length) return false;
          resolve(out);
          return true;
        },
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  private run(): void {
    this.scheduled = false;
    const start = performance.now();
    let j = 0;
    while (this.jobs.length > 0 && performance.now() - start < this.sliceMs) {
      if (j >= this.jobs.length) j = 0;
      if ((this.jobs[j] as Job).next()) this.jobs.splice(j, 1);
      else j++;
    }
    if (this.jobs.length > 0) this.schedule();
  }
}
