/**
 * A throwaway Redis Cluster on this machine: three masters started with `--cluster-enabled yes`
 * on free ports, joined by `redis-cli --cluster create`. For tests and fault scenarios.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { freePorts } from '../../src/dev/free-port.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LocalRedisCluster {
  /** `redis+cluster://…` as the service takes it. */
  url: string;
  ports: number[];
  stop(): Promise<void>;
}

export async function startRedisCluster(masters = 3): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-cluster-'));
  const ports = await freePorts(masters);
  const procs: ChildProcess[] = ports.map((port) =>
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    ),
  );
  const stop = async () => {
    for (const p of procs) p.kill('SIGKILL');
    await sleep(100);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      for (let i = 0; i < 100; i++) {
        const r = await run('redis-cli', ['-p', String(port), 'ping']).catch(() => ({ stdout: '' }));
        if (r.stdout.trim() === 'PONG') break;
        await sleep(50);
      }
    }
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
    // The cluster is usable once every node agrees all slots are served.
    const probe = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })));
    probe.on('error', () => undefined);
    try {
      for (let i = 0; i < 200; i++) {
        const info = await probe.cluster('INFO').catch(() => '');
        if (String(info).includes('cluster_state:ok')) break;
        await sleep(100);
      }
      await probe.set('{probe}x', '1');
    } finally {
      probe.disconnect();
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, ports, stop };
}
