import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

export interface LocalRedis {
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/** Whether a Redis answers PING at `url` (one short try, no retries). */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export const REDIS_INSTALL_HINT = 'Install it with: apt-get install -y redis-server (Debian/Ubuntu) or brew install redis (macOS).';

/**
 * Uses the Redis at `url` if it answers; otherwise starts a throwaway `redis-server` on a
 * free port (no persistence, BullMQ-safe eviction policy) and stops it on `stop()`.
 */
export async function ensureRedis(url: string, opts: { log?: (m: string) => void } = {}): Promise<LocalRedis> {
  if (await redisAnswers(url)) return { url, stop: async () => undefined };
  const port = await freePort();
  opts.log?.(`Redis at ${url} does not answer; starting redis-server on 127.0.0.1:${port}`);
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'], {
    stdio: 'ignore',
  });
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('error', resolve);
    child.once('spawn', () => resolve(undefined));
  });
  if (spawned) throw new Error(`Redis is not reachable at ${url} and redis-server could not be started (${spawned.message}). ${REDIS_INSTALL_HINT}`);
  const local = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && !(await redisAnswers(local)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await redisAnswers(local))) throw new Error(`redis-server started but does not answer on ${local}`);
  return {
    url: local,
    stop: async () => {
      child.kill('SIGTERM');
    },
  };
}

/**
 * A redis-server of a test's or fault scenario's own on `port`, its append-only file in `dir`
 * (synced on every write with `always`, once a second with `everysec`), BullMQ-safe eviction:
 * killed, it comes back from its files. Resolves once it accepts connections.
 */
export async function startPersistentRedis(port: number, dir: string, fsync: 'always' | 'everysec'): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      fsync,
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    for (const stream of [proc.stdout, proc.stderr]) {
      stream.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
    }
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  return proc;
}
