import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installSample } from './install.js';

/** A sample with no dependencies: `npm ci` installs nothing and needs no registry. */
async function emptySample(root: string): Promise<string> {
  const dir = path.join(root, 'sample');
  await mkdir(dir);
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'empty-sample', version: '1.0.0' }));
  await writeFile(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({
      name: 'empty-sample',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: 'empty-sample', version: '1.0.0' } },
    }),
  );
  return dir;
}

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.once('exit', () => resolve(child.pid as number));
  });
}

describe('installSample', () => {
  let root: string;
  let saved: string | undefined;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'vendor-install-'));
    saved = process.env.VENDOR_SAMPLES_CACHE;
    process.env.VENDOR_SAMPLES_CACHE = path.join(root, 'cache');
  });
  afterEach(async () => {
    if (saved === undefined) delete process.env.VENDOR_SAMPLES_CACHE;
    else process.env.VENDOR_SAMPLES_CACHE = saved;
    await rm(root, { recursive: true, force: true });
  });

  it('installs once for two runs at the same time and reuses the install afterwards', async () => {
    const sample = await emptySample(root);
    const [a, b] = await Promise.all([installSample(sample), installSample(sample)]);
    expect(a.nodeModules).toBe(b.nodeModules);
    expect([a.installedSeconds, b.installedSeconds].filter((s) => s !== undefined)).toHaveLength(1);
    const again = await installSample(sample);
    expect(again).toEqual({ nodeModules: a.nodeModules });
    // One install folder, its lock and work folders gone.
    expect(await readdir(path.join(root, 'cache'))).toEqual([path.basename(path.dirname(a.nodeModules))]);
  }, 60_000);

  it('installs over a lock left by a run that stopped mid-install', async () => {
    const sample = await emptySample(root);
    const first = await installSample(sample);
    const dir = path.dirname(first.nodeModules);
    await rm(dir, { recursive: true });
    await mkdir(`${dir}.lock`, { recursive: true });
    await writeFile(path.join(`${dir}.lock`, 'pid'), String(await deadPid()));
    const second = await installSample(sample);
    expect(second.installedSeconds).toBeDefined();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  }, 60_000);
});
