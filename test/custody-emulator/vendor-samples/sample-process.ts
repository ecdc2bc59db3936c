import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The vendor's files, as published (see its NOTICE.md). */
export const VENDOR_ROOT = path.join(here, '..', 'vendor', 'unbound-sample-code');
const PRELOAD = path.join(here, 'preload.cjs');

/**
 * A working directory of the sample's own: its files copied unchanged, its installed
 * `node_modules` linked, and `data/data.json` (the sample's state between runs) holding only
 * `seed`. The samples read that file relative to their sources and write it relative to the
 * current directory, so both must be this folder.
 */
export async function sampleWorkdir(sampleDir: string, nodeModules: string, seed?: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `vendor-${path.basename(path.dirname(sampleDir))}-`));
  await cp(sampleDir, dir, { recursive: true });
  await symlink(nodeModules, path.join(dir, 'node_modules'), 'dir');
  await mkdir(path.join(dir, 'data'));
  if (seed) await writeFile(path.join(dir, 'data', 'data.json'), JSON.stringify(seed, undefined, 2));
  return dir;
}

export async function readState(dir: string): Promise<Record<string, any>> {
  return JSON.parse(await readFile(path.join(dir, 'data', 'data.json'), 'utf8')) as Record<string, any>;
}

export interface SampleRun {
  /** stdout and stderr lines, in order, the preload's `[prompt]`/`[transport]` lines included. */
  lines: string[];
  /** Resolves with the first match of `re` on a line, already printed or to come. */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
  /** The exit code. */
  exited: Promise<number | null>;
  kill(): void;
}

export interface SampleOptions {
  cwd: string;
  /** The script to run, relative to `cwd` (the sample's own `index.js`, or a runner of its module). */
  entry: string;
  /** `[from, to]` URL prefixes: the sample's hosts → local http servers. */
  routes: [string, string][];
  /** `[prompt name, answer]`, each used once, in order. */
  answers?: [string, unknown][];
  /** More environment for the runner (never the network). */
  env?: Record<string, string>;
}

/** Runs the sample in its own Node process with the preload shim (transport and prompts only). */
export function runSample(o: SampleOptions): SampleRun {
  const child = spawn(process.execPath, ['--require', PRELOAD, o.entry], {
    cwd: o.cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      VENDOR_SAMPLE_ROUTES: JSON.stringify(o.routes),
      VENDOR_SAMPLE_ANSWERS: JSON.stringify(o.answers ?? []),
      // Node 24 warns that the samples' dependencies use deprecated APIs; not the samples' steps.
      NODE_NO_WARNINGS: '1',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  const onLine = (line: string) => {
    // The samples' spinner redraws itself with carriage returns and escape codes.
    // eslint-disable-next-line no-control-regex
    const clean = line.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/^.*\r/, '');
    lines.push(clean);
    for (const w of [...waiters]) {
      const m = w.re.exec(clean);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (b: Buffer) => {
      buffered += b.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      parts.forEach(onLine);
    });
    stream.on('end', () => buffered && onLine(buffered));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    lines,
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        for (const line of lines) {
          const m = re.exec(line);
          if (m) return resolve(m);
        }
        waiters.push({ re, resolve });
        void exited.then((code) => reject(new Error(`the sample exited (${code}) before printing ${re}:\n${lines.join('\n')}`)));
      }),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}
