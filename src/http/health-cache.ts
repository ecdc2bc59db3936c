/**
 * Dependency checks of the status routes, shared: while one check of a dependency is under
 * way every caller waits for it (one in-flight promise), and its answer is reused for
 * `ttlMs` after it came. However many status calls arrive, each dependency (a ledger node,
 * the custody service, Redis) sees at most one check per TTL, so the routes cannot be used
 * to multiply calls to them.
 */
export class HealthCache {
  private readonly entries = new Map<string, { promise: Promise<unknown>; until: number }>();

  constructor(private readonly ttlMs: number) {}

  /** The answer of `check` under `key`: the one under way, or the last one if younger than the TTL. */
  get<T>(key: string, check: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const entry = this.entries.get(key);
    if (entry && entry.until > now) return entry.promise as Promise<T>;
    const promise = check();
    const fresh = { promise, until: Number.POSITIVE_INFINITY };
    this.entries.set(key, fresh);
    const settle = () => {
      if (this.ttlMs > 0) fresh.until = Date.now() + this.ttlMs;
      else if (this.entries.get(key) === fresh) this.entries.delete(key);
    };
    promise.then(settle, () => {
      // A check that threw is not kept: the next caller tries again.
      if (this.entries.get(key) === fresh) this.entries.delete(key);
    });
    return promise;
  }
}
