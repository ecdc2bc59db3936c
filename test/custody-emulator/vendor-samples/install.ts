import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

export interface SampleInstall {
  /** The sample's `node_modules`, installed from its own lockfile. */
  nodeModules: string;
  /** Seconds the install took when this run made it; undefined when it was there already. */
  installedSeconds?: number;
}

/** Where installs are kept: one folder per lockfile, reused by every later run on the machine. */
export function samplesCache(): string {
  return process.env.VENDOR_SAMPLES_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'byow-vendor-samples');
}

function run(cmd: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} in ${cwd} exited ${code}:\n${out}`))));
  });
}

/** Whether the process that took the lock (its pid written inside) is still running. */
async function holderAlive(lock: string): Promise<boolean> {
  const pid = Number(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => ''));
  if (!pid) return true; // just taken, pid not written yet
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Waits for the other run's install to end: its marker appears or its lock goes (it failed). A
 * lock whose process is gone (a run stopped mid-install) is removed, so the next run installs.
 */
async function otherInstall(marker: string, lock: string): Promise<void> {
  const until = Date.now() + 10 * 60_000;
  while (!existsSync(marker) && existsSync(lock)) {
    if (!(await holderAlive(lock))) {
      await rm(lock, { recursive: true, force: true });
      return;
    }
    if (Date.now() > until) throw new Error(`${lock} held for 10 minutes: remove it if no install is running`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The sample's dependencies exactly as its lockfile pins them (`npm ci`, no install scripts),
 * in `{cache}/{hash of package.json and package-lock.json}/`. A lock directory keeps two runs
 * from installing the same set at once; the second waits for the first and reuses its install.
 * The project's own dependencies are never touched.
 */
export async function installSample(sampleDir: string): Promise<SampleInstall> {
  const manifest = await readFile(path.join(sampleDir, 'package.json'));
  const lockfile = await readFile(path.join(sampleDir, 'package-lock.json'));
  const hash = createHash('sha256').update(manifest).update(lockfile).digest('hex').slice(0, 16);
  const root = samplesCache();
  const dir = path.join(root, hash);
  const marker = path.join(dir, '.installed.json');
  const nodeModules = path.join(dir, 'node_modules');
  if (existsSync(marker)) return { nodeModules };
  await mkdir(root, { recursive: true });
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      await otherInstall(marker, lock);
      if (existsSync(marker)) return { nodeModules };
    }
  }
  try {
    if (existsSync(marker)) return { nodeModules };
    const work = `${dir}.work`;
    await rm(work, { recursive: true, force: true });
    await mkdir(work);
    await copyFile(path.join(sampleDir, 'package.json'), path.join(work, 'package.json'));
    await copyFile(path.join(sampleDir, 'package-lock.json'), path.join(work, 'package-lock.json'));
    const started = Date.now();
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], work);
    const seconds = (Date.now() - started) / 1000;
    await rm(dir, { recursive: true, force: true });
    await rename(work, dir);
    await writeFile(
      marker,
      JSON.stringify({ sample: path.basename(path.dirname(sampleDir)) + '/' + path.basename(sampleDir), seconds, at: new Date().toISOString() }),
    );
    return { nodeModules, installedSeconds: seconds };
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
