import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/platform/turns.js';

/** A task that records when it starts and ends, and ends when told. */
function gate(name: string, log: string[]) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return {
    open,
    task: async () => {
      log.push(`${name} starts`);
      await opened;
      log.push(`${name} ends`);
      return name;
    },
  };
}

describe('Turns: one key at a time, keys side by side', () => {
  it("runs one key's tasks one after another, in the order they came", async () => {
    const turns = new Turns();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => gate(n, log));
    const runs = [a!, b!, c!].map((g) => turns.run('vault-1', g.task));
    await Promise.resolve();
    expect(log).toEqual(['a starts']);
    c!.open();
    b!.open();
    a!.open();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    expect(turns.busy).toBe(0);
  });

  it('runs the tasks of different keys side by side', async () => {
    const turns = new Turns();
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((n) => gate(n, log));
    const runs = [turns.run('vault-1', a!.task), turns.run('vault-2', b!.task)];
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['a starts', 'b starts']);
    expect(turns.busy).toBe(2);
    b!.open();
    expect(await runs[1]).toBe('b');
    a!.open();
    expect(await runs[0]).toBe('a');
    expect(turns.busy).toBe(0);
  });

  it('a task that fails passes its error to its caller and the next task still runs', async () => {
    const turns = new Turns();
    const failing = turns.run('vault-1', async () => {
      throw new Error('node down');
    });
    const next = turns.run('vault-1', async () => 'next');
    await expect(failing).rejects.toThrow('node down');
    expect(await next).toBe('next');
    expect(turns.busy).toBe(0);
  });
});
