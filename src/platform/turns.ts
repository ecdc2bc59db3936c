/**
 * Tasks of one key run one after another, in the order they came; tasks of different keys run
 * side by side. In one process only: it spares a read-then-claim step (Bitcoin coin selection)
 * from racing the same step of this process, while claims in Redis still decide between
 * processes. A key is kept only while it has tasks.
 */
export class Turns {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const mine = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a task running or waiting. */
  get busy(): number {
    return this.tails.size;
  }
}
