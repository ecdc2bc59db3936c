import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Child processes started by a deployment test, with everything they printed. */
export class Processes {
  readonly output: string[] = [];
  private readonly children: { name: string; child: ChildProcess; group: boolean }[] = [];

  /**
   * Starts `command args` with exactly `env` (plus PATH and HOME). `group`: in its own process
   * group, for commands such as `npm run` whose real work runs in a grandchild.
   */
  start(name: string, command: string, args: string[], env: Record<string, string>, opts: { cwd?: string; group?: boolean } = {}): ChildProcess {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: opts.group ?? false,
    });
    child.stdout?.on('data', (d: Buffer) => this.output.push(`${name}: ${d.toString()}`));
    child.stderr?.on('data', (d: Buffer) => this.output.push(`${name}: ${d.toString()}`));
    this.children.push({ name, child, group: opts.group ?? false });
    return child;
  }

  /** Resolves with the exit code of a command run to its end. */
  run(name: string, command: string, args: string[], env: Record<string, string>, cwd?: string): Promise<number | null> {
    const child = this.start(name, command, args, env, { cwd });
    return new Promise((done) => child.once('exit', (code) => done(code)));
  }

  /** Throws with what the processes printed when a long-running one has exited. */
  assertRunning(what: string, names: string[]): void {
    for (const { name, child } of this.children) {
      if (names.includes(name) && child.exitCode !== null)
        throw new Error(`${name} exited (${child.exitCode}) while waiting for ${what}:\n${this.output.join('')}`);
    }
  }

  /** Polls `probe` until it returns a value; fails early when one of `names` exited. */
  async until<T>(what: string, names: string[], probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const value = await probe().catch(() => undefined);
      if (value !== undefined) return value;
      this.assertRunning(what, names);
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`timed out waiting for ${what}:\n${this.output.join('')}`);
  }

  /** SIGTERM to every process still running (to the whole group of grouped ones), awaiting each exit. */
  async stopAll(): Promise<void> {
    await Promise.all(
      this.children.map(
        ({ child, group }) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done();
            child.once('exit', () => done());
            if (group) process.kill(-child.pid, 'SIGTERM');
            else child.kill('SIGTERM');
          }),
      ),
    );
  }
}

export async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/**
 * The npm packages the compiled entries load through static imports, following relative
 * imports from file to file. Dynamic `import()` (the sandbox, loaded only in that profile) is
 * left out on purpose: the production image holds only `dependencies`.
 */
export function staticPackageImports(entries: string[]): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/gm)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
    }
  }
  return packages;
}
