import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { imageEnv, imageNodeOptions, loadCompose } from './compose.js';

const MB = 2 ** 20;

describe("the image's memory flags", () => {
  it('are flags node accepts in NODE_OPTIONS, and bound the heap of every process the image runs', () => {
    const options = imageNodeOptions();
    const oldSpace = Number(/--max-old-space-size=(\d+)/.exec(options)?.[1]);
    // Without the flag, V8's own maximum semi-space on 64-bit hosts: 16 MB up to Node 22, 64 MB in Node 24.
    const semiSpace = Number(/--max-semi-space-size=(\d+)/.exec(options)?.[1] ?? 16);
    expect(oldSpace).toBeGreaterThan(0);
    // Node refuses (exit 9) a V8 flag that NODE_OPTIONS does not allow: the containers would not start.
    const run = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))"], {
      env: { ...process.env, NODE_OPTIONS: options },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const limitMB = Number(run.stdout) / MB;
    expect(limitMB).toBeGreaterThanOrEqual(oldSpace);
    expect(limitMB).toBeLessThanOrEqual(oldSpace + 3 * semiSpace + 16);
    // docker-compose.yml runs the API and the worker from the image and must not replace its NODE_OPTIONS.
    const { services } = loadCompose();
    for (const name of ['api', 'worker']) expect(Object.keys(services[name]?.environment ?? {})).not.toContain('NODE_OPTIONS');
  });

  it("keep glibc's malloc to two arenas in every process, which compose does not replace", () => {
    expect(imageEnv('MALLOC_ARENA_MAX')).toBe('2');
    const { services } = loadCompose();
    for (const name of ['api', 'worker']) expect(Object.keys(services[name]?.environment ?? {})).not.toContain('MALLOC_ARENA_MAX');
  });
});
